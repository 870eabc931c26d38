import sys

from proofcheck.cli import main

sys.exit(main())
