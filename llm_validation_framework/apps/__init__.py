"""Applications on top of the library: the ``lvf`` command line, the model server, the HTML report."""
