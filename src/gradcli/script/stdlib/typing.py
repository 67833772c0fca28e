"""Python's ``typing`` as a script imports it: the names annotations use (``List[int]``,
``Optional[torch.Tensor]``, ``Callable[[int], str]`` ...), which print as CPython prints them
and do nothing else; ``cast`` returns its value, ``TYPE_CHECKING`` is False."""

from __future__ import annotations

from typing import Any

from ...api.types import TypeObject


class Form:
    """A typing form: ``typing.List``, or subscripted, ``typing.List[int]``."""

    __slots__ = ("args", "name")
    script_type = "typing._GenericAlias"
    script_subscript = True

    def __init__(self, name: str, args: tuple | None = None) -> None:
        self.name = name
        self.args = args

    def __getitem__(self, args: Any) -> Any:
        args = args if isinstance(args, tuple) else (args,)
        if self.name == "Union" or self.name == "Optional":
            members = args + ((None,) if self.name == "Optional" else ())
            unique = tuple(dict.fromkeys(members))
            if len(unique) == 1:
                return unique[0]
            if len(unique) == 2 and None in unique:
                return Form("Optional", tuple(a for a in unique if a is not None))
            return Form("Union", unique)
        if self.name == "Literal":  # each value once (1 and True are two)
            try:
                args = tuple(dict.fromkeys((type(a), a) for a in args))
                args = tuple(a for _, a in args)
            except TypeError:  # an unhashable value: kept as given, as CPython does
                pass
        return Form(self.name, args)

    def script_repr(self, printer: Any) -> str:
        if self.args is None:
            return f"typing.{self.name}"
        return f"typing.{self.name}[{', '.join(_name(a, printer) for a in self.args)}]"


def _name(arg: Any, printer: Any) -> str:
    """An argument of a form as CPython shows it: ``int``, ``torch.Tensor``, ``...``."""
    if arg is None:
        return "NoneType"
    if arg is Ellipsis:
        return "..."
    if isinstance(arg, TypeObject):
        return arg.qualname
    if isinstance(arg, list):
        return "[" + ", ".join(_name(a, printer) for a in arg) + "]"
    return printer.repr(arg)


class TypeVar:
    """``TypeVar('T')``, printed ``~T``."""

    __slots__ = ("name",)
    script_type = "typing.TypeVar"

    def __init__(self, name: str, *constraints: Any, **kwargs: Any) -> None:
        self.name = name

    def script_repr(self, printer: Any) -> str:
        return f"~{self.name}"


def cast(typ: Any, val: Any) -> Any:
    """``cast(typ, val)``: ``val``."""
    return val


_FORMS = ("Any", "List", "Dict", "Tuple", "Set", "FrozenSet", "Optional", "Union", "Callable",
          "Iterable", "Iterator", "Sequence", "Mapping", "MutableMapping", "Type", "Generator",
          "NoReturn", "Literal", "ClassVar", "Final")
MEMBERS: dict[str, Any] = {name: Form(name) for name in _FORMS}
MEMBERS.update({"TypeVar": TypeObject("typing.TypeVar", (TypeVar,), TypeVar), "cast": cast,
                "TYPE_CHECKING": False})

__all__ = ["MEMBERS"]
