a, b = 1, 2
a, b = b, a
print(a, b)
x = [1, 2, 3]
first, *rest = x
print(first, rest)
*init, last = x
print(init, last)
(p, q), r = (1, 2), 3
print(p, q, r)
for i, (u, v) in enumerate(zip("ab", [1.5, 2.5])):
    print(i, u, v)
d = {"a": 1, "b": [1, 2], "c": {"d": None}}
print(d, d["b"], d.get("z", 0), list(d.keys()), list(d.values()))
for k, v in d.items():
    print(k, "->", v)
s = {3, 1, 2}
print(sorted(s), len(s), 2 in s)
print([i * i for i in range(6) if i % 2], {i: i ** 2 for i in range(3)}, {c for c in "aab"})
print(sum(i for i in range(10)), max([3, 1, 2]), min(3, 1, 2), max("abc", key=lambda c: -ord(c)))
print(list(map(lambda t: t * 2, [1, 2])), list(filter(None, [0, 1, 2, 0])))
print(any([0, 0, 1]), all([]), sorted([3, 1, 2], reverse=True), list(reversed([1, 2, 3])))
print(round(2.675, 2), round(7.5), abs(-3), divmod(7, 2), pow(2, 10), 7 // 2, -7 % 3)
print(int("42"), float("1e-3"), str(1.0), bool([]), repr("a'b"), ascii("é"))
print(type(1), type(1.0), type("a"), type([]), type(None), isinstance(True, int))
print(1, 2, 3, sep=", ", end="!\n")
print("x", end="")
print("y")
print(f"{3.14159:.2f} {42:>5} {'s'!r} {7:03d} {1e6:,.0f} {0.25:.1%}")
w = 10
print(f"{w=} {w = } {w!r:>{w}}|")
print("%s and %r and %.3f and %5d|%-5d|" % ("a", "b", 3.14159, 42, 7))
print("%(name)s is %(age)d" % {"name": "Bo", "age": 3})
print("{} {:.2f} {name} {0}".format(1, 2.5, name="n") if False else "{} {:.2f} {name}".format(1, 2.5, name="n"))
print("a,b,,c".split(","), " x ".strip(), "-".join(["a", "b"]), "abc".upper(), "Hello".replace("l", "L"))
print((1,), (), (1, 2), [(1, 2)], [[1, [2]]], {1: (2,)}, [None, True, 1.5, "s"])
t = (1, 2, 3)
print(t[1:], t[::-1], t.index(2), t.count(3), len(t))
lst = []
lst.append(1); lst.extend([2, 3]); lst.insert(0, 0); lst.pop(); lst.remove(1)
print(lst)
lst += [9]
lst *= 2
print(lst)
def f(a, b=2, *args, c=3, **kw):
    return a, b, args, c, kw
print(f(1), f(1, 5, 6, 7, c=8, z=9), f(*[1, 2], **{"c": 0}))
g = lambda *xs: sum(xs)
print(g(1, 2, 3), (lambda: "no args")())
def outer():
    n = 5
    def inner(k):
        return n + k
    return inner
print(outer()(1))
def counter():
    total = 0
    for v in range(4):
        total += v
    return total
print(counter())
n = 0
while n < 5:
    n += 1
    if n == 2:
        continue
    if n == 4:
        break
else:
    print("no break")
print(n)
for i in range(2):
    pass
else:
    print("for else", i)
try:
    1 / 0
except ZeroDivisionError as e:
    print("caught", e, type(e), repr(e), e.args)
finally:
    print("finally")
try:
    {}["k"]
except LookupError as e:
    print("lookup", e)
try:
    raise ValueError("bad", 2)
except (TypeError, ValueError) as e:
    print(e)
else:
    print("no")
try:
    pass
except Exception:
    pass
else:
    print("else ran")
assert 1 == 1, "fine"
x = [1, 2, 3]
del x[0]
print(x)
x[0] = 9
print(x)
dd = {}
dd["a"] = 1
dd["a"] += 1
print(dd)
def gl():
    global counter_g
    counter_g = 7
gl()
print(counter_g)
print(1 < 2 < 3, 1 if 0 else 2, not None, None or "x", 0 and 1, 2 ** -1, 5 & 3, 5 | 3, 5 ^ 3, 1 << 4, ~5)
print("ab" * 3, [0] * 3, "a" in "abc", 3 not in [1, 2], x is not None)
print(__name__)
print(len("héllo"), chr(65), ord("A"), hex(255), bin(5), oct(8))
print(next(iter([7, 8])), list(range(10, 0, -3)), range(5), list(enumerate("ab", 1)))
print(hasattr([], "append"), callable(len), callable(1), getattr("x", "upper")())
print({**{"a": 1}, "b": 2}, [*range(3), *"ab"])
print("%5.1f|%-6s|%x" % (3.14159, "ab", 255))
