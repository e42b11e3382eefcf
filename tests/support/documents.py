"""Documents the format tests write for themselves (PDFs through fpdf2, a test dependency; EPUBs
through zipfile)."""

import zipfile

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


CONTAINER_XML = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""


def epub_package(title, items, spine, version="3.0", toc=None):
    """An OPF package file: ``items`` (id, href, media type, properties) in its manifest,
    ``spine`` the idrefs in reading order ("id linear=no" marks one non-linear)."""
    manifest = "".join(f'<item id="{i}" href="{href}" media-type="{kind}"' + (f' properties="{props}"' if props else "")
                       + "/>" for i, href, kind, props in items)
    refs = "".join(f'<itemref idref="{ref.split()[0]}"' + (' linear="no"' if " linear=no" in ref else "") + "/>"
                   for ref in spine)
    dc_title = f"<dc:title>{title}</dc:title>" if title else ""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<package xmlns="http://www.idpf.org/2007/opf" '
            f'version="{version}" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">{dc_title}'
            f'<dc:identifier id="id">urn:uuid:0</dc:identifier><dc:language>en</dc:language></metadata>'
            f'<manifest>{manifest}</manifest><spine' + (f' toc="{toc}"' if toc else "") + f">{refs}</spine></package>")


def xhtml(title, body):
    """An XHTML content document."""
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" '
            f'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>{title}</title></head><body>{body}</body></html>')


def write_epub(path, members, container=CONTAINER_XML):
    """An EPUB's zip: ``mimetype`` first and stored, as OCF asks, then ``META-INF/container.xml``
    (none when ``container`` is None) and ``members`` (name -> text or bytes), deflated."""
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        if container is not None:
            book.writestr("META-INF/container.xml", container, compress_type=zipfile.ZIP_DEFLATED)
        for name, content in members.items():
            book.writestr(name, content, compress_type=zipfile.ZIP_DEFLATED)
    return path
