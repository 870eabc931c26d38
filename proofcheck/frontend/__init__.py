"""The front end (untrusted): the command line, the pipeline that orchestrates runs,
dataset and certificate files, reports, exports, the statement registry and the plugin
API.  It imports the constructions and the kernel, never the reverse (docs/architecture/
layers.md)."""
