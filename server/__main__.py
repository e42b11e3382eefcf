import sys

from tutorialbook.server.cli import main

sys.exit(main())
