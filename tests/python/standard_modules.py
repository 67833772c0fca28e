# The standard modules a program imports for ordinary work: what CPython prints, line by line.
import random
import itertools
import functools
import collections
import sys
import time
from collections import Counter, OrderedDict, defaultdict, deque, namedtuple
from functools import lru_cache, partial, reduce
from typing import Any, Callable, ClassVar, Dict, Final, Iterable, List, Literal, Mapping, Optional, Tuple, Union

# random: CPython's generator, seeded
random.seed(1234)
words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia"]
random.shuffle(words)
print(words, random.random(), random.randint(-5, 5), random.randrange(0, 50, 7))
print(random.choice(words), random.sample(words, 3), random.choices("xyz", weights=[1, 2, 3], k=5))
print(random.uniform(2, 3), random.gauss(0, 1), random.normalvariate(1, 2), random.expovariate(2))
print(random.triangular(0, 1), random.betavariate(2, 3), random.getrandbits(40))
state = random.getstate()
first = random.random()
random.setstate(state)
print(first == random.random())
rng = random.Random(99)
print(rng.random(), rng.randint(1, 6), random.Random("seed").random(), random.Random(99).random())
for bad in ((lambda: random.randint(1)), (lambda: random.choice([])), (lambda: random.sample([1], 2)),
            (lambda: random.randrange(0)), (lambda: random.seed([1])), (lambda: rng.shuffle(5))):
    try:
        bad()
    except (TypeError, ValueError, IndexError) as e:
        print(type(e).__name__, e)

# itertools
print(list(itertools.product("ab", range(2))), list(itertools.product([0, 1], repeat=2)))
print(list(itertools.permutations([1, 2, 3], 2)), list(itertools.combinations("abcd", 3)))
print(list(itertools.combinations_with_replacement("ab", 2)), list(itertools.chain("ab", [1])))
print(list(itertools.chain.from_iterable([[1, 2], [3]])), list(itertools.islice(itertools.count(10, 5), 4)))
print(list(itertools.accumulate([3, 1, 4, 1, 5], max)), list(itertools.accumulate([1, 2, 3], initial=10)))
print([(k, len(list(g))) for k, g in itertools.groupby(sorted("mississippi"))])
print(list(itertools.zip_longest("abc", [1], fillvalue=0)), list(itertools.pairwise("abcd")))
print(list(itertools.takewhile(lambda x: x * x < 10, itertools.count())), list(itertools.repeat(7, 3)))
print(list(itertools.starmap(lambda a, b: a - b, [(5, 1), (9, 4)])), list(itertools.compress(range(5), [1, 0, 1])))
evens, odds = itertools.tee(range(6))
print(list(itertools.filterfalse(lambda n: n % 2, evens)), list(itertools.dropwhile(lambda n: n < 4, odds)))
counter = itertools.count(5)
next(counter)
print(counter, [itertools.count(2.5, 0.5)], itertools.count(0, True), itertools.count(0, 1.0), itertools.repeat(7, 3))
print(itertools.repeat("a"), itertools.repeat(None), itertools.repeat(print), itertools.repeat([1.5, "b"], 0))
cycler = itertools.cycle("xy")
print([next(cycler) for _ in range(5)])
for bad in ((lambda: itertools.product(5)), (lambda: list(itertools.chain(5))), (lambda: itertools.repeat()),
            (lambda: itertools.chain.from_iterable(5))):
    try:
        bad()
    except TypeError as e:
        print(type(e).__name__, e)

# functools
print(reduce(lambda acc, x: acc * 10 + x, [1, 2, 3]), reduce(max, [], -1), functools.reduce(lambda a, b: a + b, "abc"))
def power(base, exponent):
    return base ** exponent
square = partial(power, exponent=2)
print(square(7), [square(i) for i in range(4)], square.args, square.keywords, square.func is power)
@lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(80), fib.cache_info())
fib.cache_clear()
print(fib.cache_info())
@functools.cache
def slow_square(n):
    return n * n
print(slow_square(12), slow_square(12), slow_square.cache_info().hits)
def shout(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return str(fn(*args)).upper()
    return wrapper
@shout
def greet(name):
    return "hi " + name
print(greet("ada"), greet.__name__, sorted([5, 2, 9], key=functools.cmp_to_key(lambda a, b: b - a)))
for bad in ((lambda: reduce(power, [])), (lambda: partial()), (lambda: partial(3)), (lambda: fib([1]))):
    try:
        bad()
    except TypeError as e:
        print(type(e).__name__, e)

# collections
counts = Counter("the quick brown fox jumps over the lazy dog".split() + ["the"])
print(counts, counts.most_common(2), counts["cat"], counts.total())
counts.update(["fox", "fox"])
counts.subtract({"the": 3})
print(counts["fox"], counts["the"], Counter("aab") + Counter("abc"), Counter("aab") - Counter("a"), Counter())
print("%s" % counts.most_common(1), "%s | %r" % (Counter("aab"), Counter("b")), "%(a)d, %(b)s" % Counter("aab"))
print("%s" % Counter(), "%s" % OrderedDict(a=1), "%r" % defaultdict(int), "%s" % {"k": [1]}, "%(k)s" % {"k": [1]})
groups = defaultdict(list)
for word in ["apple", "avocado", "banana", "blueberry", "cherry"]:
    groups[word[0]].append(word)
print(groups, dict(groups), groups.default_factory, defaultdict(int)["missing"], defaultdict())
od = OrderedDict([("b", 2), ("a", 1)])
od["c"] = 3
od.move_to_end("b")
print(od, list(od), od.popitem(), od.popitem(last=False), OrderedDict())
window = deque(maxlen=3)
for i in range(5):
    window.append(i)
window.appendleft(-1)
print(window, list(window), window[0], len(window), window.popleft(), deque("ab"), deque())
window.extend([8, 9])
window.rotate(1)
print(window, window.maxlen, 9 in window, list(reversed(window)), window.count(9), window.index(9))
Point = namedtuple("Point", ["x", "y"])
p = Point(3, y=4)
x, y = p
print(p, p.x + p.y, p[0], x, y, p._asdict(), p._replace(y=0), p._fields, isinstance(p, tuple), Point)
window[0] = "first"
try:
    window[-9] = 0
except IndexError as e:
    print(type(e).__name__, e, window)
Pair = namedtuple("Pair", "left right", defaults=[None])
print(Pair(1), type(p), type(counts), type(od), type(groups), type(window))
for bad in ((lambda: Point(1)), (lambda: namedtuple("P", "x 1y")), (lambda: defaultdict(3)),
            (lambda: deque([], maxlen=-1)), (lambda: defaultdict(None)["k"]), (lambda: window[7]),
            (lambda: deque()[0]), (lambda: window["0"]), (lambda: window.remove(42)), (lambda: window.index(42)),
            (lambda: deque().pop()), (lambda: deque().popleft())):
    try:
        bad()
    except (TypeError, ValueError, KeyError, IndexError) as e:
        print(type(e).__name__, e)

# typing
Vector = List[float]
def scale(v: Vector, k: float = 2.0) -> Vector:
    return [k * x for x in v]
Reducer = Callable[[int, int], int]
def pick(mode: Literal["sum", "mean"] = "mean", xs: Iterable[float] = ()) -> Mapping[str, Any]:
    return {mode: list(xs)}
print(pick(xs=(1.5,)), Literal["sum", "mean"], Literal["a", "a", 1, True], Literal, ClassVar[int], Final[float], Any)
print(scale([1.0, 2.5]), Vector, Reducer, Dict[str, int], Optional[int], Union[int, str], Tuple[int, ...])

# sys and time
sys.stdout.write("written by sys.stdout.write\n")
print(sys.stdout.write("x") == 1)
start = time.perf_counter()
now = time.time()
print(time.perf_counter() >= start, time.time() >= now)
try:
    sys.exit("stopped")
except SystemExit as e:
    print("SystemExit", e)

# the modules with a script's classes
class Item:
    def __init__(self, n):
        self.n = n
    def __repr__(self):
        return f"Item({self.n})"
    def __eq__(self, other):
        return isinstance(other, Item) and self.n == other.n
    def __hash__(self):
        return hash(self.n)
    def __lt__(self, other):
        return self.n < other.n
    @functools.lru_cache(maxsize=None)
    def scaled(self, k):
        return self.n * k
    @functools.cache
    def squared(self):
        return self.n ** 2
items = [Item(i) for i in range(6)]
random.seed(7)
random.shuffle(items)
print(items, random.choice(items), sorted(items)[:2], max(items), Counter([Item(1), Item(1), Item(2)]))
print(itertools.repeat(Item(3), 2), deque([Item(4)], maxlen=2), defaultdict(list, {Item(5): [Item(6)]}))
one = Item(2)
print(one.scaled(10), one.scaled(10), Item(3).scaled(10), one.squared(), one.scaled.cache_info(), Item.scaled.cache_info())
print(one.scaled, Item.scaled(one, 10), one.scaled == one.scaled, one.scaled != Item(2).scaled)
one.scaled.cache_clear()
print(Item.scaled.cache_info(), [(k, len(list(g))) for k, g in itertools.groupby([Item(1), Item(1), Item(2)])])
