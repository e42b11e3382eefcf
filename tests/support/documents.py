"""Documents the format tests write for themselves (PDFs through fpdf2, a test dependency)."""

from fpdf import FPDF

SECTIONS = [
    ("Getting started", 0, "Install the tool with the package manager. It needs no configuration.", None),
    (
        "Your first project",
        0,
        "Create a folder and run the init command inside it.",
        "tool init --name demo\ntool build",
    ),
    ("Options", 1, "Each option has a default; the build reads them from the project file.", None),
]


def write_pdf(path, outline=True, title="The Tool Handbook", encrypt=False, text=True, user_password="secret",
              method=None):
    """A small handbook: SECTIONS with bookmarks (or without), in Helvetica with Courier code;
    encrypted (a user password, or none: owner-only restrictions), or a drawing and no text."""
    pdf = FPDF()
    if title:
        pdf.set_title(title)
    if encrypt:
        pdf.set_encryption(owner_password="owner", user_password=user_password,
                           **({"encryption_method": method} if method else {}))
    pdf.add_page()
    if text:
        for name, level, body, code in SECTIONS:
            if outline:
                pdf.start_section(name, level=level)
            pdf.set_font("Helvetica", "B", 20 if level == 0 else 15)
            pdf.multi_cell(0, 10, text=name, new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("Helvetica", size=11)
            pdf.multi_cell(0, 6, text=body, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(4)
            if code:
                pdf.set_font("Courier", size=10)
                pdf.multi_cell(0, 5, text=code, new_x="LMARGIN", new_y="NEXT")
                pdf.ln(4)
    else:
        pdf.set_fill_color(40, 90, 160)
        pdf.rect(20, 20, 120, 80, style="F")  # a picture of a page: drawing, no text layer
    pdf.output(str(path))
    return path
