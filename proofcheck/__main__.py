import sys

from proofcheck.frontend.cli import main

sys.exit(main())
