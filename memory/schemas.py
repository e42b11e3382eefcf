"""The tables of a tutorialbook store and their Arrow schemas.

Vectors are plain fixed-size float columns computed by our embedder; list-shaped
fields (evidence, steps) are JSON text so every row stays one flat record.
"""

import pyarrow as pa

def _schema(*fields: tuple[str, pa.DataType], vector: bool = False) -> pa.Schema:
    columns = [pa.field("id", pa.string(), nullable=False), pa.field("book", pa.string())]
    columns += [pa.field(name, kind) for name, kind in fields]
    if vector:
        columns.append(pa.field("vector", pa.list_(pa.float32())))  # sized per store: see with_dim
    return pa.schema(columns)


S, F, I, B = pa.string(), pa.float64(), pa.int64(), pa.bool_()  # noqa: E741 - the column types as one-letter codes

SCHEMAS: dict[str, pa.Schema] = {
    "books": _schema(("title", S), ("description", S), ("created_at", F)),
    "tutorials": _schema(
        ("title", S), ("source", S), ("content_hash", S), ("duration", F), ("timed", B),
        ("language", S), ("domain", S), ("models", S), ("status", S), ("owner", S),
        ("report", S), ("created_at", F),
    ),
    "segments": _schema(
        ("tutorial_id", S), ("idx", I), ("start", F), ("end", F), ("text", S), vector=True
    ),
    "nodes": _schema(
        ("parent_id", S), ("position", I), ("title", S), ("summary", S), ("kind", S),
        ("evidence", S), ("origin", S), ("version", I), ("text", S), ("updated_at", F),
        vector=True,
    ),
    "skills": _schema(
        ("node_id", S), ("name", S), ("when_to_use", S), ("steps", S), ("evidence", S),
        ("sources", I), ("helpful", I), ("harmful", I), ("version", I), ("author", S),
        ("origin", S), ("text", S), ("created_at", F), ("updated_at", F), vector=True,
    ),
    "lessons": _schema(
        ("text", S), ("outcome", S), ("context", S), ("skill_id", S), ("node_id", S),
        ("agent", S), ("key", S), ("merged_count", I), ("created_at", F), ("updated_at", F),
        vector=True,
    ),
    "positions": _schema(
        ("tutorial_id", S), ("epd", S), ("move_san", S), ("move_uci", S), ("kind", S), ("line", I),
        ("ply", I), ("start", F), ("end", F), ("quote", S), ("reason", S), ("node_id", S),
        ("skill_id", S), ("eco", S), ("opening", S),
    ),
    # text read off a video's frames (acquire/screen.py): ``shown`` as read, ``text`` searched
    "screen": _schema(
        ("tutorial_id", S), ("idx", I), ("start", F), ("end", F), ("kind", S), ("shown", S), ("text", S),
    ),
    "questions": _schema(
        ("tutorial_id", S), ("question", S), ("answer", S), ("kind", S), ("evidence", S),
        ("passed_before", B), ("passed_after", B), ("created_at", F),
    ),
    # append-only: who wrote what, when (see memory/history.py); never restored or rewritten
    "events": _schema(
        ("at", F), ("agent", S), ("action", S), ("target", S), ("summary", S), ("versions", S),
        ("detail", S),
    ),
    # before every write to a book's table: the rows it may touch as they were (memory/undo.py)
    "undo": pa.schema([
        pa.field("id", S, nullable=False), pa.field("of_table", S), pa.field("at", F), pa.field("books", S),
        pa.field("ids", S), pa.field("before", pa.binary()),
    ]),
}

#: Tables searched by text get a native BM25 index on this column.
FTS_TABLES = ("segments", "nodes", "skills", "lessons", "screen")


def with_dim(schema: pa.Schema, dim: int) -> pa.Schema:
    """The schema with its vector column fixed to the embedder's dimension."""
    if "vector" not in schema.names:
        return schema
    index = schema.get_field_index("vector")
    return schema.set(index, pa.field("vector", pa.list_(pa.float32(), dim)))
