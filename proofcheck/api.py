"""The plugins' one stable import: every name of :mod:`proofcheck.frontend.api` (docs/howto/
plugins.md).  Names not in ``__all__`` are not part of it."""
from proofcheck.frontend.api import *  # noqa: F401,F403
from proofcheck.frontend.api import __all__  # noqa: F401
