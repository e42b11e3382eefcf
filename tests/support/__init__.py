"""What tests (and bench/ scripts) share: the shipped examples, media and documents made on the
spot, servers started in a subprocess, the source modules. Imported as ``tests.support`` (the
project root is on sys.path: pytest's ``pythonpath``, a bench script's own insert); not test files."""
