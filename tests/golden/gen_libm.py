"""Golden fixture for attnlab's own elementary functions (src/base/libm.h): each function's exact
value, computed with Python's decimal module at 120 significant digits and rounded once to the
nearest double.

    /usr/bin/python3 tests/golden/gen_libm.py

Writes tests/golden/libm.json (committed): {"cases": [{"f": name, "x": hex, ["y": hex,] "want": hex}]}.
The arguments, from a fixed seed: where the tool calls each function (Box–Muller's log of (0, 1]
and angles in [0, 2π), softmax's exp of (−745, 0], GELU's tanh and erf, RoPE's pow and angles),
the edges of each method's intervals, and far arguments (sin and cos of 1e22 and 2^1000, exp near
overflow and underflow, subnormals).
"""
import json
import math
import os
import random
from decimal import Decimal, getcontext

getcontext().prec = 400  # sin and cos of 2^1000 lose ~300 digits to the reduction
D = Decimal
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "libm.json")


def pi():
    # Machin: pi/4 = 4 arctan(1/5) - arctan(1/239), in integers scaled by 10^420
    scale = 10 ** 420

    def arctan_inv(n):
        total, term, k, sign = 0, scale // n, 1, 1
        while term:
            total += sign * (term // k)
            term //= n * n
            k += 2
            sign = -sign
        return total

    return D(4 * (4 * arctan_inv(5) - arctan_inv(239))) / D(scale)


PI = pi()


def sin_cos(x):
    """sin and cos of the exact double x."""
    x = D(x)
    n = (x / (2 * PI)).to_integral_value()
    r = x - n * 2 * PI  # |r| <= pi
    s, c, term, k = D(0), D(0), D(1), 0
    while True:  # term = r^k / k!
        if k % 4 == 0:
            c += term
        elif k % 4 == 1:
            s += term
        elif k % 4 == 2:
            c -= term
        else:
            s -= term
        k += 1
        term = term * r / k
        if abs(term) < D(10) ** -150:
            return s, c


def erf(x):
    x = D(x)
    s, term, n, x2 = D(0), x, 0, x * x
    while True:
        t = term / (2 * n + 1)
        s += t
        if abs(t) < D(10) ** -150:
            break
        n += 1
        term = -term * x2 / n
    return 2 / PI.sqrt() * s


def exact(f, x, y=None):
    X = D(x)
    if f == "exp":
        return X.exp()
    if f == "expm1":
        return X.exp() - 1
    if f == "log":
        return X.ln()
    if f == "log10":
        return X.ln() / D(10).ln()
    if f == "sin":
        return sin_cos(x)[0]
    if f == "cos":
        return sin_cos(x)[1]
    if f == "tanh":
        e = (2 * X).exp()
        return (e - 1) / (e + 1)
    if f == "erf":
        return erf(x) if abs(x) < 7 else D(1 if x > 0 else -1)
    if f == "pow":
        return (D(y) * X.ln()).exp()
    raise ValueError(f)


rng = random.Random(20261204)
cases = []


def add(f, x, y=None):
    want = float(exact(f, x, y))
    case = {"f": f, "x": float(x).hex()}
    if y is not None:
        case["y"] = float(y).hex()
    case["want"] = want.hex()
    cases.append(case)


# exp: softmax's range, the table's edges, overflow and underflow
for _ in range(300):
    add("exp", rng.uniform(-40, 40))
for _ in range(100):
    add("exp", rng.uniform(-745, 709.78))
for x in [0.0, 1e-300, -1e-20, 1.0, -1.0, 0.5 * math.log(2) / 128, math.log(2), 709.78, 709.782712893384, -708.4, -744.4, -745.1]:
    add("exp", x)
# expm1 and tanh: around zero, the Taylor interval's edge, large
for _ in range(200):
    add("expm1", rng.uniform(-2, 2))
for _ in range(100):
    add("expm1", rng.uniform(-60, 60))
for x in [1e-20, -1e-10, 0.34, 0.3400001, -0.34, -0.35, 40.0, -40.0]:
    add("expm1", x)
for _ in range(200):
    add("tanh", rng.uniform(-3, 3))
for _ in range(100):
    add("tanh", rng.uniform(-25, 25))
for x in [1e-30, 1e-8, 0.17, -0.17, 0.5, 21.9, -22.0]:
    add("tanh", x)
# log: Box–Muller's (0, 1], wide, near 1, subnormals
for _ in range(300):
    add("log", rng.random() or 0.5)
for _ in range(100):
    add("log", 2.0 ** rng.uniform(-1000, 1000))
for x in [1.0, 1 + 2 ** -52, 1 - 2 ** -53, 2.0, 0.5, math.sqrt(2), 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 10000.0]:
    add("log", x)
# log's table (src/base/libm.h): both sides of the near-1 interval [0.9375, 1.0625) where the atanh
# form takes over, and both sides of every 128th of [1, 2) at three exponents (no random draws here,
# so the cases after these are the ones they were)
for x in [0.9375, 1.0625]:
    for k in (-2, -1, 0, 1):
        add("log", x + k * math.ulp(x))
for e in (-1, 0, 7):
    for i in range(1, 128):
        m = 1 + i / 128
        add("log", math.ldexp(m, e))
        add("log", math.ldexp(m - 2 ** -52, e))
# log10: the decode lesson's roofline axis; powers of ten give their exponent
for _ in range(150):
    add("log10", 10.0 ** rng.uniform(-5, 8))
for k in range(-20, 23):
    add("log10", float(f"1e{k}"))
# sin, cos: Box–Muller's angles, RoPE's angles (position × frequency), far arguments
for f in ("sin", "cos"):
    for _ in range(300):
        add(f, 2 * math.pi * rng.random())
    for _ in range(100):
        add(f, rng.randrange(1, 200000) * 10000.0 ** (-rng.randrange(0, 64) / 64))
    for _ in range(60):
        add(f, 2.0 ** rng.uniform(20, 1000))
    for x in [1e-10, 0.7853981633974483, 0.7853981633974484, 1.5707963267948966, 3.141592653589793, 1e22, 2.0 ** 1000, -5.0, 1572864.0, 1572863.9]:
        add(f, x)
# erf: GELU's x/√2, each quarter's edges, the tail
for _ in range(300):
    add("erf", rng.uniform(-4, 4))
for _ in range(50):
    add("erf", rng.uniform(-6.5, 6.5))
for x in [1e-300, 1e-9, 0.125, 0.1250001, 0.375, 1.0, 2.9999999, 5.87, 5.99, 6.0]:
    add("erf", x)
# pow: RoPE's base^(−2i/d), Adam's β^t, integer powers
for _ in range(150):
    d = rng.choice([8, 16, 64, 128])
    add("pow", rng.choice([10000.0, 500000.0, 1000000.0]), -2.0 * rng.randrange(0, d // 2) / d)
for _ in range(100):
    add("pow", rng.choice([0.9, 0.95, 0.98, 0.999]), float(rng.randrange(1, 20000)))
for _ in range(100):
    add("pow", rng.uniform(0.01, 100), rng.uniform(-20, 20))
for x, y in [(2.0, 10.0), (10.0, -2.0), (10.0, 3.0), (2.0, 0.5), (0.5, 1074.0), (1.0000001, 1e7)]:
    add("pow", x, y)

with open(OUT, "w") as out:
    json.dump({"cases": cases}, out, indent=0)
    out.write("\n")
print(f"wrote {OUT}: {len(cases)} cases")
