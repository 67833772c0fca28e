class Counter:
    """Counts."""
    made = 0

    def __init__(self, start=0, *, step=1):
        self.value = start
        self.step = step
        Counter.made += 1

    def tick(self):
        self.value += self.step
        return self

    def __repr__(self):
        return f"Counter({self.value})"

    def __call__(self, n):
        return [self.tick().value for _ in range(n)]


c = Counter(5, step=2)
print(c.tick(), c(3), Counter.made, c.made, Counter.__doc__, type(c).__name__)
print(isinstance(c, Counter), isinstance(c, object), issubclass(Counter, object), callable(c))


class Base:
    kind = "base"

    def __init__(self, x):
        self.x = x

    def describe(self):
        return f"{self.kind}:{self.x}"

    @staticmethod
    def helper(a, b=2):
        return a * b

    @classmethod
    def build(cls, x):
        return cls(x * 10)


class Child(Base):
    kind = "child"

    def __init__(self, x, y):
        super().__init__(x)
        self.y = y

    def describe(self):
        return super().describe() + f"+{self.y}"

    @classmethod
    def build(cls, x):
        return cls(x, -x)


class GrandChild(Child):
    def describe(self):
        return "gc(" + super(GrandChild, self).describe() + ")"


print(Base(1).describe(), Child(2, 3).describe(), GrandChild(4, 5).describe())
print(Base.helper(3), Child(1, 1).helper(4, b=5), Base.build(2).x, Child.build(3).y)
print(type(Child.build(1)) is Child, isinstance(GrandChild(1, 2), Base), issubclass(Child, Base))
print(issubclass(Base, Child), issubclass(Child, (int, Base)), Child.kind, Base("k").kind)


class Temperature:
    def __init__(self):
        self._c = 0.0

    @property
    def celsius(self):
        return self._c

    @celsius.setter
    def celsius(self, value):
        if value < -273.15:
            raise ValueError("too cold")
        self._c = value

    @celsius.deleter
    def celsius(self):
        self._c = None

    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32


t = Temperature()
t.celsius = 100
print(t.celsius, t.fahrenheit)
try:
    t.celsius = -300
except ValueError as e:
    print("ValueError", e)
try:
    t.fahrenheit = 3
except AttributeError as e:
    print("AttributeError", e)
del t.celsius
print(t.celsius)


class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)

    def __repr__(self):
        return "Vec(" + ", ".join(str(x) for x in self.xs) + ")"

    def __str__(self):
        return "<" + " ".join(str(x) for x in self.xs) + ">"

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i]

    def __setitem__(self, i, v):
        self.xs[i] = v

    def __add__(self, other):
        if isinstance(other, Vec):
            return Vec(*[a + b for a, b in zip(self.xs, other.xs)])
        return Vec(*[a + other for a in self.xs])

    def __radd__(self, other):
        return self + other

    def __mul__(self, k):
        return Vec(*[a * k for a in self.xs])

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs

    def __hash__(self):
        return hash(tuple(self.xs))

    def __lt__(self, other):
        return sum(self.xs) < sum(other.xs)

    def __bool__(self):
        return any(self.xs)

    def __contains__(self, x):
        return x in self.xs


v, w = Vec(1, 2), Vec(3, 4)
print(v + w, v + 1, 1 + v, 2 * v, v * 3, -v, sum([v, w]), len(v), v[1], v[-1], list(v))
print(str(v), repr(v), [v, w], f"{v}", f"{v!r}", v == Vec(1, 2), v != w, v < w, sorted([w, v]))
print(bool(Vec(0, 0)), bool(v), 2 in v, 5 in v, {v: 1}[Vec(1, 2)], max([v, w]), v is v)
v[0] = 10
v += w
print(v, [x for x in v], *v)


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


print(list(Countdown(3)), next(Countdown(5)), [i * 2 for i in Countdown(2)])


class Seq:
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError("end")
        return i * i


print(list(Seq()), 4 in Seq(), 5 in Seq())


class Lazy:
    def __init__(self):
        self.real = 1

    def __getattr__(self, name):
        return f"made {name}"


lz = Lazy()
print(lz.real, lz.other, getattr(lz, "x"), hasattr(lz, "y"))


class Plain:
    pass


p = Plain()
p.a = 1
setattr(p, "b", 2)
print(p.a, getattr(p, "b"), hasattr(p, "c"), getattr(p, "c", "default"))
delattr(p, "a")
print(hasattr(p, "a"), type(p) is Plain, type(Plain).__name__)


class A:
    def who(self):
        return ["A"]


class B(A):
    def who(self):
        return ["B"] + super().who()


class C(A):
    def who(self):
        return ["C"] + super().who()


class D(B, C):
    def who(self):
        return ["D"] + super().who()


print(D().who(), isinstance(D(), C), issubclass(D, A))


def register(cls):
    cls.registered = True
    return cls


@register
class Outer:
    class Inner:
        def name(self):
            return "inner"

    def make(self):
        return self.Inner()


print(Outer.registered, Outer().make().name(), Outer.Inner.__name__)


class AppError(Exception):
    pass


class BadInput(AppError):
    """Input was bad."""


try:
    raise BadInput("no good", 3)
except AppError as e:
    print(type(e).__name__, e.args, isinstance(e, Exception), repr(e))
try:
    raise BadInput
except BadInput as e:
    print("caught", type(e) is BadInput, str(e) == "")
