from dataclasses import dataclass, field, fields, asdict, astuple, replace
import dataclasses


@dataclass
class Point:
    """A point."""
    x: int
    y: float = 0.0
    tags: list = field(default_factory=list)

    def norm(self):
        return (self.x ** 2 + self.y ** 2) ** 0.5


p = Point(3, 4.0)
print(p, p.norm(), Point(1), Point(1) == Point(1), Point(1) == Point(2), Point.__doc__)
print([f.name for f in fields(Point)], fields(p)[1].default, asdict(p), astuple(Point(1, 2.0, [3])))
print(replace(p, y=1.5), p.tags is Point(1).tags, Point(1).tags == [])
try:
    Point()
except TypeError as e:
    print(e)
try:
    Point(1, 2, 3, 4)
except TypeError as e:
    print(e)
try:
    Point(1, q=2)
except TypeError as e:
    print(e)
try:
    hash(p)
except TypeError as e:
    print(e)


@dataclass(frozen=True)
class Frozen:
    a: int
    b: str = "b"


f = Frozen(1)
print(f, hash(f) == hash(Frozen(1)), {f: 1}[Frozen(1)])
try:
    f.a = 2
except dataclasses.FrozenInstanceError as e:
    print("FrozenInstanceError", e, isinstance(e, AttributeError))
try:
    del f.b
except AttributeError as e:
    print(type(e).__name__, e)


@dataclass(order=True)
class Version:
    major: int
    minor: int = 0


print(sorted([Version(2), Version(1, 5), Version(1)]), Version(1) < Version(1, 1), max(Version(3), Version(2, 9)))
try:
    Version(1) < 3
except TypeError as e:
    print(e)


@dataclass
class Config:
    lr: float = 1e-3
    layers: list = field(default_factory=lambda: [2, 3])
    name: str = field(default="net", repr=False)

    def __post_init__(self):
        self.depth = len(self.layers)


@dataclass
class Child(Config):
    extra: int = 7


c = Child(lr=0.5)
print(c, c.depth, c.name, [f.name for f in fields(c)], asdict(c))
try:
    @dataclass
    class Bad:
        a: int = 1
        b: int
except TypeError as e:
    print(e)
try:
    @dataclass
    class Mutable:
        items: list = []
except ValueError as e:
    print(e)
