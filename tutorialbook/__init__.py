"""Tutorialbook: continual learning from tutorials for MCP agents.

    from tutorialbook import Library
    library = Library(store="./store")
    library.ingest("examples/sourdough.md", book="baking")
    library.retrieve("how do I know the dough is proofed?", book="baking")
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    if name == "Library":  # lazy: importing LanceDB costs seconds
        from tutorialbook.library import Library

        return Library
    raise AttributeError(name)
