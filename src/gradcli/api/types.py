"""Classes as a script sees them: ``type(x)``, ``isinstance(x, torch.Tensor)``, ``int(...)``.

A script never touches a Python class: ``int``, ``list``, ``torch.Tensor`` or
``RuntimeError`` are ``TypeObject``s that print as Python prints the class
(``<class 'torch.Tensor'>``), test membership against the Python classes they stand for,
and, where calling the class makes sense, construct through a function of gradcli's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class TypeObject:
    """A class a script can name, print, compare, test with ``isinstance`` and maybe call."""

    __slots__ = ("classes", "make", "parent", "qualname", "test")
    script_type = "type"

    def __init__(self, qualname: str, classes: tuple[type, ...] = (),
                 make: Callable[..., Any] | None = None,
                 parent: TypeObject | None = None,
                 test: Callable[[Any], bool] | None = None) -> None:
        self.qualname = qualname  # 'int', 'torch.Tensor'
        self.classes = classes  # the Python classes whose instances are instances of this
        self.make = make  # what calling the class does (None: it cannot be called)
        self.parent = parent  # the base class, for exception classes
        self.test = test  # instead of `classes`, for a class the engine marks by a flag

    def instance(self, obj: Any) -> bool:
        """``isinstance(obj, self)`` (exception values are tested by the caller)."""
        if self.test is not None:
            return self.test(obj)
        return bool(self.classes) and isinstance(obj, self.classes)

    @property
    def name(self) -> str:
        """The class's ``__name__``: ``Tensor`` for ``torch.Tensor``."""
        return self.qualname.rpartition(".")[2]

    def is_subclass(self, other: TypeObject) -> bool:
        """Whether this class is ``other`` or derives from it."""
        t: TypeObject | None = self
        while t is not None:
            if t is other:
                return True
            t = t.parent
        return False

    def __repr__(self) -> str:
        return f"<class '{self.qualname}'>"


__all__ = ["TypeObject"]
