# Functions, closures, decorators, generators and exceptions: what Python prints, line by line.
def make_adder(n):
    def add(x):
        return x + n
    return add


add3 = make_adder(3)
print(add3(4), make_adder(10)(1))


def scale_all(xs, factor=2):
    return [factor * x for x in xs if x]


print(scale_all([0, 1, 2]), scale_all([1], factor=-1))


def logged(fn):
    def wrapper(*args, **kwargs):
        print("calling", fn.__name__, args, kwargs)
        return fn(*args, **kwargs)
    return wrapper


@logged
def area(w, h=1):
    return w * h


print(area(3, h=4))
print(area.__name__, type(area), callable(area))

squares = (i * i for i in range(4))
print(next(squares), list(squares), list(squares))
pairs = sorted([("b", 2), ("a", 3), ("c", 1)], key=lambda p: p[1])
print(pairs, min(pairs, key=lambda p: p[0]), max(pairs)[0])
words = "the quick brown fox".split()
print(" ".join(w.capitalize() for w in words), len(words), words[::-1])
print({w: len(w) for w in words if len(w) > 3})
counts = {}
for ch in "mississippi":
    counts[ch] = counts.get(ch, 0) + 1
print(counts, sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def first_negative(values):
    for i, v in enumerate(values):
        if v < 0:
            return i
    return None


print(first_negative([3, 1, -2, 5]), first_negative([]))


def cleanup_order():
    try:
        print("body")
        return "returned"
    finally:
        print("finally runs before the return")


print(cleanup_order())
for attempt in range(3):
    try:
        if attempt < 2:
            raise RuntimeError(f"attempt {attempt} failed")
        print("succeeded on", attempt)
    except RuntimeError as err:
        print("retry:", err)
        continue
    finally:
        print("after attempt", attempt)
    break


def check(x):
    if not isinstance(x, (int, float)):
        raise TypeError(f"expected a number, got {type(x).__name__}")
    return x


for value in (1, 2.5, "three", None):
    try:
        print("ok", check(value))
    except TypeError as e:
        print("TypeError:", e)
try:
    [][0]
except IndexError as e:
    print(repr(e), isinstance(e, LookupError), isinstance(e, Exception))
try:
    try:
        raise KeyError("inner")
    except KeyError:
        raise ValueError("outer")
except Exception as e:
    print(type(e).__name__, e)
total = 0
i = 0
while True:
    i += 1
    if i % 2:
        continue
    total += i
    if i >= 10:
        break
print(total, i)
matrix = [[1, 2, 3], [4, 5, 6]]
print([[row[c] for row in matrix] for c in range(3)], [x for row in matrix for x in row if x % 2])
a, b, *c = range(5)
print(a, b, c, *c, sep="|")
print(f"{'left':<8}|{'right':>8}|{'mid':^9}|{3.14159:8.3f}|{-42:+d}|{255:#x}|{1234567:_}")
print("{:>6.2%} {:e} {!r}".format(0.1234, 12345.678, "q"))
print("%-8s|%08.3f|%+d|%c" % ("ab", 3.14159, 5, 65))
big = 2 ** 100
print(big, big // 3, -big % 7, float(big), 10 ** 20 / 3)
print(0.1 + 0.2, 1e16, 1e-5, 1.0, -0.0, float("inf"), float("nan"), 2.5e300 * 10)
print(round(0.5), round(1.5), round(2.675, 2), int(-3.9), 7 / 2, -7 // 2, 7 % -3)
