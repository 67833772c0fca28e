"""gradcli: run tiny Python-flavoured scripts and see PyTorch's autograd graph."""

__version__ = "0.1.0"
