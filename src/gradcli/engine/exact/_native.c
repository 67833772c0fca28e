/* The exact kernels compiled: loops doing, operation for operation, what the NumPy code of
 * engine/exact computes (fp.py's fused multiply-adds, sleef.py's expf/logf, sleef64.py's exp,
 * log and polynomials, softmaxes.py's last-dimension log_softmax of float32 and float64,
 * reduce.py's cascade and nll sums, nll_loss's gradient scatter and an indexing's gradient
 * scatter-add, unary.py's tanh_backward and threshold_backward, layernorm.py's row moments,
 * output and gradients, distributions.py's avx_mathfun steps, generator.py's randperm
 * shuffles), and the calls blas.py, vml.py and clib.py make through ctypes (MKL's gemm, gemv
 * and VML, the C library's math) made from C.  native.py says where each is used;
 * tests/test_native.py holds each to its NumPy twin, bit for bit (layer_norm's:
 * tests/test_layer_norm_exact.py).
 *
 * Every float operation here is one IEEE operation in the argument's format: the build passes
 * -ffp-contract=off (no a * b + c silently fused) and no fast-math, and x86-64's SSE evaluates
 * float as float (FLT_EVAL_METHOD 0).  The loops the compiler vectorises (-fvect-cost-model=
 * dynamic) run the same operations lane by lane; sums stay in order (no reassociation).  fmaf and fma are the C library's, rounded once.
 *
 * Arrays come through the buffer protocol: C-contiguous, each elementwise operand holding n
 * elements or one (broadcast), or strided where a function says so (the products, the sums).
 * The Python side checks dtypes and layouts before calling.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* x86-64: the elementwise loops compiled twice, for the baseline and for x86-64-v3 (AVX2 and
 * FMA), picked at load time by the CPU: there fmaf is one instruction instead of a library
 * call (and what the compiler vectorises runs the same IEEE operations, lane by lane) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LOOP __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define LOOP
#endif
/* the element functions inlined into each clone of the loops (compiled for its target) */
#define INLINE static inline __attribute__((always_inline))

/* ---- bits ---------------------------------------------------------------------------------- */

INLINE float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
INLINE uint32_t to_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* a where b else c, for a mask of all ones or zeros: bit operations, which the compiler
 * vectorises (it keeps a float comparison's ?: a branch, as the comparison may trap) */
INLINE float pick(uint32_t mask, float b, float c) {
    return from_bits((mask & to_bits(b)) | (~mask & to_bits(c)));
}

/* vpow2i_vf_vi2: 2**q from its exponent bits, int32 wraparound as the hardware's */
INLINE float pow2i(int32_t q) { return from_bits(((uint32_t)q + 0x7Fu) << 23); }

/* vldexp2_vf_vf_vi2: d * 2**(e >> 1) * 2**(e - (e >> 1)), two roundings */
INLINE float ldexp2(float d, int32_t e) {
    int32_t h = e >> 1;  /* arithmetic shift, as vpsrad */
    return (d * pow2i(h)) * pow2i(e - h);
}

/* ---- SLEEF's xexpf (sleef.py _expf) ---------------------------------------------------------- */

INLINE float sleef_expf(float d) {
    /* branch-free, so that the loops calling it vectorise: the polynomial runs on d clamped to
     * the range where it is defined (the same value there), the special results are selected
     * at the end (a NaN kept with its payload, 0 below -104, infinity above 100) */
    const float r_ln2 = (float)1.442695040888963407359924681001892137426645954152985934135449406931;
    const float l2u = (float)0.693145751953125, l2l = (float)1.428606765330187045e-06;
    uint32_t nan = -(uint32_t)isnan(d), low = -(uint32_t)isless(d, -104.0f),
             high = -(uint32_t)isgreater(d, 100.0f);
    float c = pick(nan, 0.0f, pick(high, 100.0f, pick(low, -104.0f, d)));
    float qf = rintf(c * r_ln2);
    int32_t q = (int32_t)qf;
    float s = fmaf(qf, -l2u, c);
    s = fmaf(qf, -l2l, s);
    float u = (float)0.000198527617612853646278381;
    u = fmaf(u, s, (float)0.00139304355252534151077271);
    u = fmaf(u, s, (float)0.00833336077630519866943359);
    u = fmaf(u, s, (float)0.0416664853692054748535156);
    u = fmaf(u, s, (float)0.166666671633720397949219);
    u = fmaf(u, s, (float)0.5);
    u = 1.0f + fmaf(s * s, u, s);
    u = ldexp2(u, q);
    return pick(nan, d, pick(high, INFINITY, pick(low, 0.0f, u)));
}

/* ---- SLEEF's xlogf_u1, AVX512 branch (sleef.py _logf and logf's special values) ------------- */

/* vgetexp: floor(log2|x|) as a float; -inf for 0, |x| for inf and NaN (frexp's exponent less
 * one; read off the bits for normal numbers) */
INLINE float getexp(float x) {
    if (x == 0.0f) return -INFINITY;
    if (!isfinite(x)) return fabsf(x);
    int e = (int)((to_bits(x) >> 23) & 0xFF);
    if (e == 0) {  /* subnormal */
        frexpf(x, &e);
        return (float)(e - 1);
    }
    return (float)(e - 127);
}

/* vgetmant, _MM_MANT_NORM_p75_1p5: the significand scaled into [0.75, 1.5) (frexp's fraction
 * doubled; for normal numbers the significand bits under a zero exponent) */
INLINE float getmant(float x) {
    uint32_t b = to_bits(x);
    float m;
    if (((b >> 23) & 0xFF) - 1u < 0xFEu) {  /* normal */
        m = from_bits((b & 0x007FFFFFu) | 0x3F800000u);
    } else {
        int e;
        m = frexpf(fabsf(x), &e) * 2.0f;
    }
    return m >= 1.5f ? m * 0.5f : m;
}

INLINE float sleef_logf(float d) {
    if (isnan(d)) return d;
    if (d < 0.0f) return NAN;
    if (d == INFINITY) return INFINITY;
    if (d == 0.0f) return -INFINITY;
    const float ln2_hi = (float)0.69314718246459960938, ln2_lo = (float)-1.904654323148236017e-09;
    float e = getexp(d * (float)(1.0 / 0.75));
    if (e == INFINITY) e = 128.0f;
    float m = getmant(d);
    /* x = dfdiv(add2_ff(-1, m), add2_ff(1, m)) */
    float n0 = -1.0f + m, v = n0 - -1.0f;
    float n1 = (-1.0f - (n0 - v)) + (m - v);
    float d0 = 1.0f + m;
    v = d0 - 1.0f;
    float d1 = (1.0f - (d0 - v)) + (m - v);
    float t = 1.0f / d0;
    float x0 = n0 * t;
    float u = fmaf(t, n0, -x0);
    float w = fmaf(-d1, t, fmaf(-d0, t, 1.0f));
    float x1 = fmaf(x0, w, fmaf(n1, t, u));
    float x2 = x0 * x0;
    t = (float)0.3027294874;
    t = fmaf(t, x2, (float)0.3996108174);
    t = fmaf(t, x2, (float)0.6666694880);
    /* s = mul_f2_f((LN2_HI, LN2_LO), e), then add_f2_f2(s, 2x), then add_f2_f(s, x2 x t) */
    float s0 = ln2_hi * e;
    float s1 = fmaf(ln2_lo, e, fmaf(ln2_hi, e, -s0));
    float a0 = s0 + 2.0f * x0;
    float a1 = (((s0 - a0) + 2.0f * x0) + s1) + 2.0f * x1;
    float y = (x2 * x0) * t;
    float b0 = a0 + y;
    float b1 = ((a0 - b0) + y) + a1;
    return b0 + b1;
}

/* ---- fused multiply-adds (fp.py) ----------------------------------------------------------- */

/* NaN operands: the first NaN of (a * b) + c in that order, quieted (a NaN made by the
 * arithmetic itself, inf * 0, is the default NaN).  Which payload a two-NaN operation keeps is
 * otherwise the compiler's choice of operand order (NumPy's float32-to-float64 product keeps
 * the second's, its float64 one the first's): picked by hand, the same on every build. */
INLINE double product_or_nan(double a, double b) {
    if (isnan(a)) return a + 0.0;  /* + 0.0 quiets a signalling NaN, keeping its payload */
    if (isnan(b)) return b + 0.0;
    return a * b;
}

INLINE double sum_or_nan(double p, double c) {
    if (isnan(p)) return p + 0.0;
    if (isnan(c)) return c + 0.0;
    return p + c;
}

/* fma32: a * b + c rounded once; with a NaN or infinity among the operands the emulation's
 * float64 arithmetic (the same values, and its NaN's payload) */
INLINE float fused32(float a, float b, float c) {
    if (!(isfinite(a) && isfinite(b) && isfinite(c)))
        return (float)sum_or_nan(product_or_nan(a, b), c);
    return fmaf(a, b, c);
}

/* ---- SLEEF's xlog1pf (AVX512 branch) and xexpm1f (sleef.py log1pf, expm1f) ----------------
 * Double-float pairs (SLEEF's df.h, FMA variants) as two floats.  Branch-free, so that their
 * loops vectorise, as sleef_expf: every input runs the same steps (xexpm1f's clamped into the
 * range where its result is not selected, the same value there), the special values are
 * selected at the end, as the port selects them.  Wherever a result is not selected every
 * operand is finite, so each FMA is fmaf, the port's fma32 rounding once (fused32's NaN
 * payloads cannot reach a result). */

typedef struct { float x, y; } df;

INLINE df df_add_f2_f(df a, float b) {  /* dfadd_vf2_vf2_vf */
    float s = a.x + b;
    return (df){s, ((a.x - s) + b) + a.y};
}
INLINE df df_add_f2_f2(df a, df b) {  /* dfadd_vf2_vf2_vf2 */
    float s = a.x + b.x;
    return (df){s, (((a.x - s) + b.x) + a.y) + b.y};
}
INLINE df df_add2_f2_f(df a, float b) {  /* dfadd2_vf2_vf2_vf */
    float s = a.x + b, v = s - a.x;
    return (df){s, ((a.x - (s - v)) + (b - v)) + a.y};
}
INLINE df df_add2_f2_f2(df a, df b) {  /* dfadd2_vf2_vf2_vf2 */
    float s = a.x + b.x, v = s - a.x;
    return (df){s, ((a.x - (s - v)) + (b.x - v)) + (a.y + b.y)};
}
INLINE df df_add_f_f2(float a, df b) {  /* dfadd_vf2_vf_vf2 */
    float s = a + b.x;
    return (df){s, ((a - s) + b.x) + b.y};
}
INLINE df df_mul_f2_f(df a, float b) {  /* dfmul_vf2_vf2_vf */
    float s = a.x * b;
    return (df){s, fmaf(a.y, b, fmaf(a.x, b, -s))};
}
INLINE df df_mul_f2_f2(df a, df b) {  /* dfmul_vf2_vf2_vf2 */
    float s = a.x * b.x;
    return (df){s, fmaf(a.x, b.y, fmaf(a.y, b.x, fmaf(a.x, b.x, -s)))};
}
INLINE df df_squ(df a) {  /* dfsqu_vf2_vf2 */
    float s = a.x * a.x;
    return (df){s, fmaf(a.x + a.x, a.y, fmaf(a.x, a.x, -s))};
}
INLINE df df_div(df n, df d) {  /* dfdiv_vf2_vf2_vf2 */
    float t = 1.0f / d.x, s = n.x * t;
    float u = fmaf(t, n.x, -s);
    float v = fmaf(-d.y, t, fmaf(-d.x, t, 1.0f));
    return (df){s, fmaf(s, v, fmaf(n.y, t, u))};
}

INLINE float sleef_log1pf(float d) {
    const float ln2_hi = (float)0.69314718246459960938, ln2_lo = (float)-1.904654323148236017e-09;
    float dp1 = d + 1.0f;
    /* getexp's exponent, read off the bits: dp1 >= 2**-24 wherever the result is not selected,
     * so the scaled value is normal (or infinite: 128, as the port takes getexp's infinity) */
    int32_t ei = (int32_t)((to_bits(dp1 * (float)(1.0 / 0.75)) >> 23) & 0xFF) - 127;
    float e = (float)ei;
    float t = from_bits(to_bits(1.0f) + ((uint32_t)(-(uint32_t)ei) << 23));
    float m = fmaf(d, t, t - 1.0f);
    df s = df_mul_f2_f((df){ln2_hi, ln2_lo}, e);
    float two_m = 2.0f + m;
    df x = df_div((df){m, 0.0f}, (df){two_m, (2.0f - two_m) + m});
    float x2 = x.x * x.x;
    float p = fmaf((float)0.3027294874, x2, (float)0.3996108174);
    p = fmaf(p, x2, (float)0.6666694880);
    s = df_add_f2_f2(s, (df){x.x * 2.0f, x.y * 2.0f});
    s = df_add_f2_f(s, (x2 * x.x) * p);
    float r = s.x + s.y;
    uint32_t nan = -(uint32_t)isnan(d), big = -(uint32_t)isgreater(d, 1e38f),
             below = -(uint32_t)isless(d, -1.0f), minus_one = -(uint32_t)(d == -1.0f),
             minus_zero = -(uint32_t)(to_bits(d) == 0x80000000u);
    r = pick(big, INFINITY, pick(below, NAN, pick(minus_one, -INFINITY, r)));
    return pick(nan, d, pick(minus_zero, -0.0f, r));
}

/* SLEEF's expk2f: exp of a double-float, as a double-float */
INLINE df sleef_expk2f(df d) {
    const float r_ln2 = (float)1.442695040888963407359924681001892137426645954152985934135449406931;
    const float l2u = (float)0.693145751953125, l2l = (float)1.428606765330187045e-06;
    float u = (d.x + d.y) * r_ln2;
    float qf = rintf(u);  /* |u| < 2**31: the caller's clamp */
    int32_t q = (int32_t)qf;
    df s = df_add2_f2_f(d, qf * -l2u);
    s = df_add2_f2_f(s, qf * -l2l);
    u = (float)+0.1980960224e-3;
    u = fmaf(u, s.x, (float)+0.1394256484e-2);
    u = fmaf(u, s.x, (float)+0.8333456703e-2);
    u = fmaf(u, s.x, (float)+0.4166637361e-1);
    df t = df_add2_f2_f(df_mul_f2_f(s, u), (float)+0.166666659414234244790680580464e+0);
    t = df_add2_f2_f(df_mul_f2_f2(s, t), 0.5f);
    t = df_add2_f2_f2(s, df_mul_f2_f2(df_squ(s), t));
    t = df_add_f_f2(1.0f, t);
    uint32_t low = -(uint32_t)isless(d.x, -104.0f);
    return (df){pick(low, 0.0f, ldexp2(t.x, q)), pick(low, 0.0f, ldexp2(t.y, q))};
}

INLINE float sleef_expm1f(float a) {
    uint32_t nan = -(uint32_t)isnan(a), high = -(uint32_t)isgreater(a, 88.72283172607421875f),
             low = -(uint32_t)isless(a, -16.635532333438687426013570f),
             minus_zero = -(uint32_t)(to_bits(a) == 0x80000000u);
    float c = pick(nan | high, 88.0f, pick(low, -17.0f, a));
    df d = df_add2_f2_f(sleef_expk2f((df){c, 0.0f}), -1.0f);
    float x = pick(high, INFINITY, pick(low, -1.0f, d.x + d.y));
    return pick(nan, a, pick(minus_zero, -0.0f, x));
}

LOOP static void log1pf_loop(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_log1pf(x[i]);
}

LOOP static void expm1f_loop(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_expm1f(x[i]);
}

/* fma_add: p + c rounded once to float32, for an exact float64 product p: the float64 sum
 * rounded to odd (its last bit set where the sum was inexact and that bit is clear), then to
 * float32, which is the exact sum's rounding (Boldo and Melquiond: 53 >= 24 + 2 bits) */
INLINE float add_once(double p, float c) {
    double s = sum_or_nan(p, c);
    if (isfinite(s)) {
        double bb = s - p;
        double err = (p - (s - bb)) + ((double)c - bb);
        uint64_t bits;
        memcpy(&bits, &s, 8);
        if (err != 0.0 && !(bits & 1)) s = nextafter(s, err > 0.0 ? INFINITY : -INFINITY);
    }
    return (float)s;
}

/* fma64: a * b + c rounded once; non-finite operands by plain arithmetic, as fp.fma64 */
INLINE double fused64(double a, double b, double c) {
    if (!(isfinite(a) && isfinite(b) && isfinite(c))) return sum_or_nan(product_or_nan(a, b), c);
    return fma(a, b, c);
}

/* ---- avx_mathfun's log256_ps and sincos256_ps (engine/distributions.py) -----------------
 * The float32 normals' Box-Muller steps, operation for operation as distributions.py's NumPy
 * port computes them: its kernel_fma32 (a float64 product and sum, rounded to float32) where
 * GCC fused the AVX2 code. */

INLINE float kfma(float a, float b, float c) { return (float)((double)a * (double)b + (double)c); }

INLINE float cephes_log(float x) {
    const float p[9] = {(float)7.0376836292e-2, (float)-1.1514610310e-1, (float)1.1676998740e-1,
                        (float)-1.2420140846e-1, (float)1.4249322787e-1, (float)-1.6668057665e-1,
                        (float)2.0000714765e-1, (float)-2.4999993993e-1, (float)3.3333331174e-1};
    const float tiny = (float)1.17549435e-38;
    x = x < tiny ? tiny : x;  /* numpy.maximum: denormals cut off, a NaN kept */
    int32_t bits = (int32_t)to_bits(x);
    float e = (float)((bits >> 23) - 127) + 1.0f;
    x = from_bits(((uint32_t)bits & ~0x7F800000u) | 0x3F000000u);
    int small = x < (float)0.707106781186547524;
    float tmp = small ? x : 0.0f;
    x = x - 1.0f;
    e = e - (small ? 1.0f : 0.0f);
    x = x + tmp;
    float z = x * x;
    float y = p[0];
    for (int i = 1; i < 9; i++) y = kfma(y, x, p[i]);
    y = y * x;
    y = kfma(y, z, e * (float)-2.12194440e-4);
    y = y - z * 0.5f;
    return kfma(e, (float)0.693359375, x + y);
}

INLINE void cephes_sincos(float x, float *sin_out, float *cos_out) {
    int sign_sin = signbit(x) != 0;
    x = fabsf(x);
    float scaled = x * (float)1.27323954473516;
    /* _mm256_cvttps_epi32: truncation, INT32_MIN where out of range (NaN too) */
    int32_t j = scaled < 2147483648.0f ? (int32_t)scaled : INT32_MIN;
    j = (int32_t)(((uint32_t)j + 1u) & ~1u);
    float y = (float)j;
    sign_sin ^= (j & 4) != 0;
    int poly = (j & 2) == 0;
    x = kfma(y, (float)-0.78515625, x);
    x = kfma(y, (float)-2.4187564849853515625e-4, x);
    x = kfma(y, (float)-3.77489497744594108e-8, x);
    int sign_cos = (~(uint32_t)((uint32_t)j - 2u) & 4u) != 0;
    float z = x * x;
    float yc = (float)2.443315711809948e-005;
    yc = kfma(yc, z, (float)-1.388731625493765e-003);
    yc = kfma(yc, z, (float)4.166664568298827e-002);
    yc = yc * z;
    yc = kfma(yc, z, -(z * 0.5f));
    yc = yc + 1.0f;
    float ys = (float)-1.9515295891e-4;
    ys = kfma(ys, z, (float)8.3321608736e-3);
    ys = kfma(ys, z, (float)-1.6666654611e-1);
    ys = ys * z;
    ys = kfma(ys, x, x);
    float ysin2 = poly ? ys : 0.0f, ysin1 = poly ? 0.0f : yc;
    float s = ysin1 + ysin2, c = (yc - ysin1) + (ys - ysin2);
    *sin_out = sign_sin ? -s : s;
    *cos_out = sign_cos ? -c : c;
}

LOOP static void log256_loop(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = cephes_log(x[i]);
}

static void sincos256_loop(void *xv, void *sv, void *cv, Py_ssize_t n) {
    const float *x = xv;
    float *s = sv, *c = cv;
    for (Py_ssize_t i = 0; i < n; i++) cephes_sincos(x[i], s + i, c + i);
}

/* ---- log_softmax over the last dimension, AVX2 and AVX512 (softmaxes.py) -----------------
 * vec::reduce_all(+) of a row: w-lane vectors summed lane by lane, the partial tail vector
 * into the first lanes, then the lanes folded: float32's by a tree of halves, float64's in
 * order (lane 0 plus each other lane); a row shorter than a vector summed in order from 0.
 * exp and log are SLEEF's (sleef_expf and sleef_logf, sleef_exp64 and sleef_log64). */

#define LANE_SUM(T, NAME, TREE)                                                               \
INLINE T NAME(const T *x, Py_ssize_t n, int w) {                                              \
    if (n < w || w < 1) {                                                                     \
        T acc = x[0] + (T)0;                                                                  \
        for (Py_ssize_t i = 1; i < n; i++) acc = acc + x[i];                                  \
        return acc;                                                                           \
    }                                                                                         \
    T lanes[64];                                                                              \
    for (int l = 0; l < w; l++) lanes[l] = x[l];                                              \
    Py_ssize_t full = n - n % w;                                                              \
    for (Py_ssize_t d = w; d < full; d += w)                                                  \
        for (int l = 0; l < w; l++) lanes[l] = lanes[l] + x[d + l];                           \
    for (Py_ssize_t l = 0; l < n - full; l++) lanes[l] = lanes[l] + x[full + l];              \
    if (TREE) {                                                                               \
        for (int half = w / 2; half >= 1; half /= 2)                                          \
            for (int l = 0; l < half; l++) lanes[l] = lanes[l] + lanes[l + half];             \
        return lanes[0];                                                                      \
    }                                                                                         \
    T total = lanes[0];                                                                       \
    for (int l = 1; l < w; l++) total = total + lanes[l];                                     \
    return total;                                                                             \
}

/* log_softmax: out = shifted - log(sum(exp(shifted))) per row, shifted = the row less its
 * maximum (a NaN anywhere makes the maximum NaN, as NumPy's maximum.reduce does; of equal
 * values the first).  _log_softmax_backward_data: grad - exp(out) * sum(grad) per row, the
 * product fused into the subtraction (MSUB: _msub's); `out` is a new array (it holds the
 * row's exponentials first). */
#define LOG_SOFTMAX_LOOPS(T, SFX, EXP, LOG, SUM, MSUB)                                        \
LOOP static void log_softmax##SFX##_loop(const T *x, T *out, Py_ssize_t rows, Py_ssize_t n,   \
                                         int w) {                                             \
    for (Py_ssize_t r = 0; r < rows; r++) {                                                   \
        const T *a = x + r * n;                                                               \
        T *o = out + r * n;                                                                   \
        T m = a[0];                                                                           \
        for (Py_ssize_t i = 1; i < n && m == m; i++)                                          \
            if (a[i] > m || a[i] != a[i]) m = a[i];                                           \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = EXP(a[i] - m);                              \
        T l = LOG(SUM(o, n, w));                                                              \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = (a[i] - m) - l;                             \
    }                                                                                         \
}                                                                                             \
LOOP static void log_softmax_backward##SFX##_loop(const T *g, const T *y, T *out,             \
                                                  Py_ssize_t rows, Py_ssize_t n, int w) {     \
    for (Py_ssize_t r = 0; r < rows; r++) {                                                   \
        const T *gr = g + r * n, *yr = y + r * n;                                             \
        T *o = out + r * n;                                                                   \
        T s = SUM(gr, n, w);                                                                  \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = EXP(yr[i]);                                 \
        for (Py_ssize_t i = 0; i < n; i++) o[i] = MSUB(o[i], s, gr[i]);                       \
    }                                                                                         \
}

LANE_SUM(float, lane_sum, 1)
/* float32's g - e * s: add_once of the exact float64 product (_msub's fma_add) */
INLINE float msub32(float e, float s, float g) { return add_once((double)(-e) * (double)s, g); }
LOG_SOFTMAX_LOOPS(float, , sleef_expf, sleef_logf, lane_sum, msub32)

/* ---- cascade_sum's 2-D loop (reduce.py _kernel), float32 and float64 ------------------
 * Every step of reduce.py's loops is lane-wise (each output element is summed on its own), so
 * each output element here is that element's scalar sequence of the same additions:
 * multi_row_sum's cascade (chunks of `step` rows summed from 0, three levels of groups),
 * row_sum's four interleaved cascades, vectorized_inner_sum's lanes, in reduce.py's order. */

static int ceil_log2(Py_ssize_t x) {
    if (x <= 2) return 1;
    int bits = 0;
    for (size_t v = (size_t)(x - 1); v; v >>= 1) bits++;
    return bits;
}

#define CASCADE_SUMS(T, NAME)                                                                 \
static T NAME##_cascade(const T *x, Py_ssize_t m, Py_ssize_t stride) {                        \
    int lg = ceil_log2(m) / 4;                                                                \
    Py_ssize_t step = (Py_ssize_t)1 << (lg > 4 ? lg : 4), nb = m / step;                      \
    T g1 = 0, g2 = 0, g3 = 0;                                                                 \
    Py_ssize_t n1 = 0, n2 = 0;                                                                \
    for (Py_ssize_t b = 0; b < nb; b++) {                                                     \
        T c = 0;                                                                              \
        for (Py_ssize_t i = b * step; i < (b + 1) * step; i++) c = c + x[i * stride];         \
        g1 = g1 + c;                                                                          \
        if (++n1 == step) { /* a level-two value */                                           \
            g2 = g2 + g1;                                                                     \
            g1 = 0;                                                                           \
            n1 = 0;                                                                           \
            if (++n2 == step) { /* a level-three value */                                     \
                g3 = g3 + g2;                                                                 \
                g2 = 0;                                                                       \
                n2 = 0;                                                                       \
            }                                                                                 \
        }                                                                                     \
    }                                                                                         \
    T rest = 0;                                                                               \
    for (Py_ssize_t i = nb * step; i < m; i++) rest = rest + x[i * stride];                   \
    return ((rest + g1) + g2) + g3;                                                           \
}                                                                                             \
                                                                                              \
/* the cascade of each of ncols adjacent columns (x + j), eight at a time: the same additions \
 * in the same order per column, each step one vector operation over the eight */             \
LOOP static void NAME##_cascade_cols(const T *x, Py_ssize_t m, Py_ssize_t stride,             \
                                     Py_ssize_t ncols, T *out) {                              \
    int lg = ceil_log2(m) / 4;                                                                \
    Py_ssize_t step = (Py_ssize_t)1 << (lg > 4 ? lg : 4), nb = m / step, j0 = 0;              \
    for (; j0 + 8 <= ncols; j0 += 8) {                                                        \
        T g1[8] = {0}, g2[8] = {0}, g3[8] = {0}, c[8], rest[8] = {0};                         \
        Py_ssize_t n1 = 0, n2 = 0;                                                            \
        for (Py_ssize_t b = 0; b < nb; b++) {                                                 \
            for (int l = 0; l < 8; l++) c[l] = 0;                                             \
            for (Py_ssize_t i = b * step; i < (b + 1) * step; i++) {                          \
                const T *row = x + i * stride + j0;                                           \
                for (int l = 0; l < 8; l++) c[l] = c[l] + row[l];                             \
            }                                                                                 \
            for (int l = 0; l < 8; l++) g1[l] = g1[l] + c[l];                                 \
            if (++n1 == step) {                                                               \
                for (int l = 0; l < 8; l++) { g2[l] = g2[l] + g1[l]; g1[l] = 0; }             \
                n1 = 0;                                                                       \
                if (++n2 == step) {                                                           \
                    for (int l = 0; l < 8; l++) { g3[l] = g3[l] + g2[l]; g2[l] = 0; }         \
                    n2 = 0;                                                                   \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
        for (Py_ssize_t i = nb * step; i < m; i++) {                                          \
            const T *row = x + i * stride + j0;                                               \
            for (int l = 0; l < 8; l++) rest[l] = rest[l] + row[l];                           \
        }                                                                                     \
        for (int l = 0; l < 8; l++) out[j0 + l] = ((rest[l] + g1[l]) + g2[l]) + g3[l];        \
    }                                                                                         \
    for (; j0 < ncols; j0++) out[j0] = NAME##_cascade(x + j0, m, stride);                     \
}                                                                                             \
                                                                                              \
static T NAME##_row_sum(const T *x, Py_ssize_t n, Py_ssize_t stride) {                        \
    Py_ssize_t q = n / 4;                                                                     \
    T part[4];                                                                                \
    for (int j = 0; j < 4; j++) part[j] = NAME##_cascade(x + j * stride, q, 4 * stride);      \
    T acc = part[0];                                                                          \
    for (Py_ssize_t i = 4 * q; i < n; i++) acc = acc + x[i * stride];                         \
    return ((acc + part[1]) + part[2]) + part[3];                                             \
}                                                                                             \
                                                                                              \
static T NAME##_inner(const T *x, Py_ssize_t n, int width) {                                  \
    Py_ssize_t nvec = n / width;                                                              \
    T lanes[64];                                                                              \
    for (int l = 0; l < width; l++) lanes[l] = NAME##_row_sum(x + l, nvec, width);            \
    T acc = 0;                                                                                \
    for (Py_ssize_t k = nvec * width; k < n; k++) acc = acc + x[k];                           \
    for (int l = 0; l < width; l++) acc = acc + lanes[l];                                     \
    return acc;                                                                               \
}                                                                                             \
                                                                                              \
/* _kernel: x (n0 reduced, n1 kept), element strides s0, s1; out[j], j < n1 */                \
static void NAME##_kernel(const T *x, Py_ssize_t n0, Py_ssize_t n1, Py_ssize_t s0,            \
                          Py_ssize_t s1, int width, T *out) {                                 \
    Py_ssize_t direct;                                                                        \
    if (s0 == 1 && n0 >= width) {                                                             \
        for (Py_ssize_t j = 0; j < n1; j++) out[j] = NAME##_inner(x + j * s1, n0, width);     \
        return;                                                                               \
    }                                                                                         \
    if (s1 == 1 && n1 >= width) {  /* adjacent columns: their cascades side by side */        \
        direct = n1 - n1 % (4 * width);                                                       \
        NAME##_cascade_cols(x, n0, s0, direct, out);                                          \
        for (Py_ssize_t j = direct; j < n1; j++) out[j] = NAME##_row_sum(x + j, n0, s0);      \
        return;                                                                               \
    }                                                                                         \
    if (s0 < s1)                                                                              \
        direct = 0;                                                                           \
    else                                                                                      \
        direct = n1 - n1 % 4;                                                                 \
    for (Py_ssize_t j = 0; j < n1; j++)                                                       \
        out[j] = j < direct ? NAME##_cascade(x + j * s1, n0, s0)                              \
                            : NAME##_row_sum(x + j * s1, n0, s0);                             \
}

/* nll_loss's reduced sum (reduce.py nll_cascade): each kept row's term subtracted from the first
 * of eight partial sums, which moves up one level at every multiple of 16, 256, ...; then the
 * partial sums added in order from 0 */
#define NLL_CASCADE(T, NAME)                                                                  \
static T NAME##_nll_cascade(const T *terms, const unsigned char *kept, Py_ssize_t n) {        \
    T partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                                  \
    for (Py_ssize_t b = 0; b < n; b++) {                                                      \
        if (!kept[b]) continue;                                                               \
        partial[0] = partial[0] - terms[b];                                                   \
        if (b & 15) continue;                                                                 \
        for (int j = 0; j < 7; j++) {                                                         \
            if (b & ((Py_ssize_t)15 << (4 * j))) break;                                       \
            partial[j + 1] = partial[j + 1] + partial[j];                                     \
            partial[j] = 0;                                                                   \
        }                                                                                     \
    }                                                                                         \
    T total = 0;                                                                              \
    for (int j = 0; j < 8; j++) total = total + partial[j];                                   \
    return total;                                                                             \
}

NLL_CASCADE(float, f32)
NLL_CASCADE(double, f64)

CASCADE_SUMS(float, f32)
CASCADE_SUMS(double, f64)

/* ---- layer_norm (layernorm.py), float32 and float64 ----------------------------------------
 * Row by row, in layernorm.py's order: RowwiseMoments (W lanes of Welford in chunks of 16
 * vectors, the chunks' cascade stack, the scalar tail, the lanes merged into it), rstd, the
 * output; the backward's vec::*_reduce_all sums, the input's gradient, and the weight's and
 * bias's gradients summed over rows into one buffer per at::parallel_for range (`chunk` rows
 * each), the buffers added in order from zero.  `fused` is madd's choice (a fused multiply-add
 * on AVX2 and AVX512, a multiply then an add on DEFAULT), `tree` _fold_lanes' (float32 off
 * DEFAULT).  The fused multiply-adds are the C library's, rounded once (`fused` 1): fmaf is
 * fused32 but for a NaN's payload (an infinite or NaN operand gives the same infinity or a NaN
 * either way).  fma is fused64 but where a finite product overflows against an infinite addend
 * of the other sign (NaN in fused64's plain arithmetic, the addend in fma's): only ever with a
 * non-finite operand, which leaves every later value it reaches non-finite, so the float64
 * loops run fma and do again with fused64 (`fused` 2) a row whose statistics or outputs came
 * out non-finite (CHECK), and the weight's gradient where one of its values did. */

#define LN_CHUNK 16
INLINE int ln_finite32(const float *x, Py_ssize_t n) {
    int bad = 0;
    for (Py_ssize_t i = 0; i < n; i++) bad |= x[i] * 0.0f != 0.0f;  /* NaN for inf and NaN */
    return !bad;
}
INLINE int ln_finite64(const double *x, Py_ssize_t n) {
    int bad = 0;
    for (Py_ssize_t i = 0; i < n; i++) bad |= x[i] * 0.0 != 0.0;
    return !bad;
}

#define LAYER_NORM_LOOPS(T, SFX, W, FMA, EXACT, SQRT, CHECK)                                  \
INLINE T ln_madd##SFX(int fused, T a, T b, T c) {                                             \
    return fused == 2 ? EXACT(a, b, c) : fused ? FMA(a, b, c) : a * b + c;                    \
}                                                                                             \
/* AddMomentsVec: (m0_add, m1_add, m2_add) merged into (*m0, m1, m2) */                       \
INLINE void ln_add_vec##SFX(Py_ssize_t m0_add, const T *m1_add, const T *m2_add,              \
                            Py_ssize_t *m0, T *m1, T *m2, int fused) {                        \
    Py_ssize_t n = *m0 + m0_add;                                                              \
    T c = n == 0 ? (T)0 : (T)m0_add / (T)n, w0 = (T)*m0;                                      \
    for (int l = 0; l < W; l++) {                                                             \
        T delta = m1_add[l] - m1[l];                                                          \
        T p = c * delta;                                                                      \
        m1[l] = m1[l] + p;                                                                    \
        m2[l] = ln_madd##SFX(fused, delta, p * w0, m2[l] + m2_add[l]);                        \
    }                                                                                         \
    *m0 = n;                                                                                  \
}                                                                                             \
/* RowwiseMoments of one row of `size` items: its mean and biased variance */                 \
INLINE void ln_moments##SFX(const T *x, Py_ssize_t size, T *mean, T *var, int fused) {        \
    Py_ssize_t n = size / W, chunks = (n + LN_CHUNK - 1) / LN_CHUNK;                          \
    int depth = ceil_log2(chunks);                                                            \
    Py_ssize_t s0[64];                                                                        \
    T s1[64][W], s2[64][W], inv[LN_CHUNK];                                                    \
    for (int j = 0; j < LN_CHUNK; j++) inv[j] = (T)1 / (T)(j + 1);                            \
    for (int d = 0; d < depth; d++) {                                                         \
        s0[d] = 0;                                                                            \
        for (int l = 0; l < W; l++) s1[d][l] = s2[d][l] = 0;                                  \
    }                                                                                         \
    for (Py_ssize_t i = 0; i < chunks; i++) {                                                 \
        T c1[W], c2[W];                                                                       \
        for (int l = 0; l < W; l++) c1[l] = c2[l] = 0;                                        \
        Py_ssize_t cnt = n - i * LN_CHUNK < LN_CHUNK ? n - i * LN_CHUNK : LN_CHUNK;           \
        const T *p = x + i * LN_CHUNK * W;                                                    \
        for (Py_ssize_t j = 0; j < cnt; j++) {                                                \
            T r = inv[j];                                                                     \
            for (int l = 0; l < W; l++) {                                                     \
                T v = p[j * W + l], d = v - c1[l];                                            \
                c1[l] = ln_madd##SFX(fused, d, r, c1[l]);                                     \
                c2[l] = ln_madd##SFX(fused, d, v - c1[l], c2[l]);                             \
            }                                                                                 \
        }                                                                                     \
        ln_add_vec##SFX(cnt, c1, c2, &s0[0], s1[0], s2[0], fused);                            \
        Py_ssize_t mask = i + 1;                                                              \
        for (int j = 1; j < depth && !(mask & 1); j++, mask >>= 1) {                          \
            ln_add_vec##SFX(s0[j - 1], s1[j - 1], s2[j - 1], &s0[j], s1[j], s2[j], fused);    \
            s0[j - 1] = 0;                                                                    \
            for (int l = 0; l < W; l++) s1[j - 1][l] = s2[j - 1][l] = 0;                      \
        }                                                                                     \
    }                                                                                         \
    for (int d = 1; d < depth; d++)                                                           \
        ln_add_vec##SFX(s0[d], s1[d], s2[d], &s0[0], s1[0], s2[0], fused);                    \
    Py_ssize_t m0 = 0;                                                                        \
    T m1 = 0, m2 = 0;                                                                         \
    for (Py_ssize_t i = n * W; i < size; i++) { /* the scalar tail, never fused */            \
        T v = x[i], d = v - m1;                                                               \
        m0++;                                                                                 \
        m1 = m1 + d / (T)m0;                                                                  \
        m2 = m2 + d * (v - m1);                                                               \
    }                                                                                         \
    for (int l = 0; l < W; l++) { /* AddMoments of each lane, n items each */                 \
        Py_ssize_t total = m0 + n;                                                            \
        T c = total == 0 ? (T)0 : (T)n / (T)total;                                            \
        T delta = s1[0][l] - m1;                                                              \
        m1 = ln_madd##SFX(fused, c, delta, m1);                                               \
        m2 = m2 + ln_madd##SFX(fused, delta * delta * c, (T)m0, s2[0][l]);                    \
        m0 = total;                                                                           \
    }                                                                                         \
    *mean = m1;                                                                               \
    *var = m2 / (T)size;                                                                      \
}                                                                                             \
/* each row's mean and rstd = 1 / sqrt(var + eps), or its variance where `variance` */        \
INLINE void ln_stats##SFX##_body(const T *x, T *mean, T *out2, Py_ssize_t rows,               \
                                 Py_ssize_t size, T eps, int fused, int variance) {           \
    for (Py_ssize_t r = 0; r < rows; r++) {                                                   \
        T var;                                                                                \
        ln_moments##SFX(x + r * size, size, &mean[r], &var, fused);                           \
        if (CHECK && fused == 1 && !(isfinite(mean[r]) && isfinite(var)))                     \
            ln_moments##SFX(x + r * size, size, &mean[r], &var, 2);                           \
        out2[r] = variance ? var : (T)1 / SQRT(var + eps);                                    \
    }                                                                                         \
}                                                                                             \
/* the output: ((x - mean) * rstd) * gamma + beta, fused with both, unfused with gamma alone  \
 * (+ 0), fma(x - mean, rstd, beta) with beta alone */                                        \
INLINE void ln_forward##SFX##_row(const T *xr, const T *g, const T *b, T m, T a, T *o,        \
                                   Py_ssize_t size, int fused) {                              \
    if (!b && !g)                                                                             \
        for (Py_ssize_t i = 0; i < size; i++) o[i] = (xr[i] - m) * a + (T)0;                  \
    else if (!b)                                                                              \
        for (Py_ssize_t i = 0; i < size; i++) o[i] = (xr[i] - m) * a * g[i] + (T)0;           \
    else if (!g)                                                                              \
        for (Py_ssize_t i = 0; i < size; i++) o[i] = ln_madd##SFX(fused, xr[i] - m, a, b[i]); \
    else                                                                                      \
        for (Py_ssize_t i = 0; i < size; i++)                                                 \
            o[i] = ln_madd##SFX(fused, (xr[i] - m) * a, g[i], b[i]);                          \
}                                                                                             \
/* dX's two sums over a row of dy (d), x and gamma (g, where `gamma`): ds of                  \
 * vec::map2_reduce_all (acc + left * right: left dy * x and right gamma, or left dy and      \
 * right x) and db (acc + dy * gamma with gamma, else vec::reduce_all's acc + dy), side by    \
 * side in one pass, each in its own lanes: the row's first vector, each full vector added (a \
 * multiply, then an add), the partial last vector's lanes by madd (vec::reduce_all's by an   \
 * add), the lanes folded (`tree`: halves; else lane 0 plus each other in order); a row       \
 * shorter than a vector summed in order from its first term */                               \
INLINE void ln_fold##SFX(T *lanes, int tree) {                                                \
    if (tree) {                                                                               \
        for (int half = W / 2; half >= 1; half /= 2)                                          \
            for (int l = 0; l < half; l++) lanes[l] = lanes[l] + lanes[l + half];             \
        return;                                                                               \
    }                                                                                         \
    T total = lanes[0];                                                                       \
    for (int l = 1; l < W; l++) total = total + lanes[l];                                     \
    lanes[0] = total;                                                                         \
}                                                                                             \
INLINE T ln_ds##SFX(int gamma, const T *d, const T *x, const T *g, Py_ssize_t i) {            \
    return gamma ? d[i] * x[i] * g[i] : d[i] * x[i];                                          \
}                                                                                             \
INLINE T ln_db##SFX(int gamma, const T *d, const T *g, Py_ssize_t i) {                        \
    return gamma ? d[i] * g[i] : d[i];                                                        \
}                                                                                             \
INLINE void ln_sums##SFX(const T *d, const T *x, const T *g, int gamma, Py_ssize_t size,      \
                         int fused, int tree, T *ds, T *db) {                                 \
    if (size < W) {                                                                           \
        T s = ln_ds##SFX(gamma, d, x, g, 0), t = ln_db##SFX(gamma, d, g, 0);                  \
        for (Py_ssize_t i = 1; i < size; i++) {                                               \
            s = s + ln_ds##SFX(gamma, d, x, g, i);                                            \
            t = t + ln_db##SFX(gamma, d, g, i);                                               \
        }                                                                                     \
        *ds = s;                                                                              \
        *db = t;                                                                              \
        return;                                                                               \
    }                                                                                         \
    T ls[W], lb[W];                                                                           \
    for (int l = 0; l < W; l++) {                                                             \
        ls[l] = ln_ds##SFX(gamma, d, x, g, l);                                                \
        lb[l] = ln_db##SFX(gamma, d, g, l);                                                   \
    }                                                                                         \
    Py_ssize_t full = size - size % W;                                                        \
    for (Py_ssize_t k = W; k < full; k += W)                                                  \
        for (int l = 0; l < W; l++) {                                                         \
            ls[l] = ls[l] + ln_ds##SFX(gamma, d, x, g, k + l);                                \
            lb[l] = lb[l] + ln_db##SFX(gamma, d, g, k + l);                                   \
        }                                                                                     \
    for (Py_ssize_t l = 0; l < size - full; l++) {                                            \
        Py_ssize_t i = full + l;                                                              \
        ls[l] = gamma ? ln_madd##SFX(fused, d[i] * x[i], g[i], ls[l])                         \
            : ln_madd##SFX(fused, d[i], x[i], ls[l]);                                         \
        lb[l] = gamma ? ln_madd##SFX(fused, d[i], g[i], lb[l]) : lb[l] + d[i];                \
    }                                                                                         \
    ln_fold##SFX(ls, tree);                                                                   \
    ln_fold##SFX(lb, tree);                                                                   \
    *ds = ls[0];                                                                              \
    *db = lb[0];                                                                              \
}                                                                                             \
/* dX: b = (db * mean - ds) * rstd**3 / N, c = -b * mean - db * rstd / N, then                \
 * (rstd * dy [* gamma] + b * x) + c, the differences and b * x fused (madd) */               \
INLINE void ln_input_grad##SFX##_row(const T *d, const T *xr, const T *g, T m, T a, T *o,     \
                                     Py_ssize_t size, int fused, int tree) {                  \
    T scale = (T)1 / (T)size, ds, db;                                                         \
    if (g) ln_sums##SFX(d, xr, g, 1, size, fused, tree, &ds, &db);                            \
    else ln_sums##SFX(d, xr, NULL, 0, size, fused, tree, &ds, &db);                           \
    T bb = ln_madd##SFX(fused, db, m, -ds) * a * a * a * scale;                               \
    T cc = ln_madd##SFX(fused, -bb, m, -(db * a * scale));                                    \
    if (g)                                                                                    \
        for (Py_ssize_t i = 0; i < size; i++)                                                 \
            o[i] = ln_madd##SFX(fused, bb, xr[i], a * d[i] * g[i]) + cc;                      \
    else                                                                                      \
        for (Py_ssize_t i = 0; i < size; i++)                                                 \
            o[i] = ln_madd##SFX(fused, bb, xr[i], a * d[i]) + cc;                             \
}                                                                                             \
/* dgamma (x given: buf += dy * (rstd * x + (-rstd * mean)), both madd) or dbeta (x NULL:     \
 * buf += dy): a zeroed buffer per range of `chunk` rows, added in order into out from 0 */   \
INLINE void ln_param_grad##SFX##_body(const T *dy, const T *x, const T *mean,                 \
                                           const T *rstd, T *out, T *buf, Py_ssize_t rows,    \
                                           Py_ssize_t size, Py_ssize_t chunk, int fused) {    \
    for (Py_ssize_t i = 0; i < size; i++) out[i] = 0;                                         \
    for (Py_ssize_t begin = 0; begin < rows || begin == 0; begin += chunk) {                  \
        Py_ssize_t end = begin + chunk < rows ? begin + chunk : rows;                         \
        for (Py_ssize_t i = 0; i < size; i++) buf[i] = 0;                                     \
        for (Py_ssize_t r = begin; r < end; r++) {                                            \
            const T *d = dy + r * size;                                                       \
            if (x) {                                                                          \
                const T *xr = x + r * size;                                                   \
                T a = rstd[r], am = -a * mean[r];                                             \
                for (Py_ssize_t i = 0; i < size; i++)                                         \
                    buf[i] = ln_madd##SFX(fused, d[i], ln_madd##SFX(fused, a, xr[i], am),     \
                                          buf[i]);                                            \
            } else {                                                                          \
                for (Py_ssize_t i = 0; i < size; i++) buf[i] = buf[i] + d[i];                 \
            }                                                                                 \
        }                                                                                     \
        for (Py_ssize_t i = 0; i < size; i++) out[i] = out[i] + buf[i];                       \
    }                                                                                         \
}                                                                                             \
/* the loops, each compiled for madd fused and not (`fused` a constant in each: the compiler  \
 * vectorises the lanes' loops) */                                                            \
LOOP static void ln_stats##SFX##_loop(const T *x, T *mean, T *out2, Py_ssize_t rows,          \
                                      Py_ssize_t size, T eps, int fused, int variance) {      \
    if (fused) ln_stats##SFX##_body(x, mean, out2, rows, size, eps, 1, variance);             \
    else ln_stats##SFX##_body(x, mean, out2, rows, size, eps, 0, variance);                   \
}                                                                                             \
LOOP static void ln_forward##SFX##_loop(const T *x, const T *g, const T *b, const T *mean,    \
                                        const T *rstd, T *out, Py_ssize_t rows,               \
                                        Py_ssize_t size, int fused) {                         \
    for (Py_ssize_t r = 0; r < rows; r++) {                                                   \
        const T *xr = x + r * size;                                                           \
        T *o = out + r * size;                                                                \
        if (!fused) {                                                                         \
            ln_forward##SFX##_row(xr, g, b, mean[r], rstd[r], o, size, 0);                    \
            continue;                                                                         \
        }                                                                                     \
        ln_forward##SFX##_row(xr, g, b, mean[r], rstd[r], o, size, 1);                        \
        if (CHECK && !ln_finite##SFX(o, size))                                                \
            ln_forward##SFX##_row(xr, g, b, mean[r], rstd[r], o, size, 2);                    \
    }                                                                                         \
}                                                                                             \
LOOP static void ln_input_grad##SFX##_loop(const T *dy, const T *x, const T *g,               \
                                           const T *mean, const T *rstd, T *out,              \
                                           Py_ssize_t rows, Py_ssize_t size, int fused,       \
                                           int tree) {                                        \
    for (Py_ssize_t r = 0; r < rows; r++) {                                                   \
        const T *d = dy + r * size, *xr = x + r * size;                                       \
        T *o = out + r * size;                                                                \
        if (!fused) {                                                                         \
            ln_input_grad##SFX##_row(d, xr, g, mean[r], rstd[r], o, size, 0, tree);           \
            continue;                                                                         \
        }                                                                                     \
        ln_input_grad##SFX##_row(d, xr, g, mean[r], rstd[r], o, size, 1, tree);               \
        if (CHECK && !ln_finite##SFX(o, size))                                                \
            ln_input_grad##SFX##_row(d, xr, g, mean[r], rstd[r], o, size, 2, tree);           \
    }                                                                                         \
}                                                                                             \
LOOP static void ln_param_grad##SFX##_loop(const T *dy, const T *x, const T *mean,            \
                                           const T *rstd, T *out, T *buf, Py_ssize_t rows,    \
                                           Py_ssize_t size, Py_ssize_t chunk, int fused) {    \
    if (!fused) {                                                                             \
        ln_param_grad##SFX##_body(dy, x, mean, rstd, out, buf, rows, size, chunk, 0);         \
        return;                                                                               \
    }                                                                                         \
    ln_param_grad##SFX##_body(dy, x, mean, rstd, out, buf, rows, size, chunk, 1);             \
    if (CHECK && x && !ln_finite##SFX(out, size))                                             \
        ln_param_grad##SFX##_body(dy, x, mean, rstd, out, buf, rows, size, chunk, 2);         \
}

LAYER_NORM_LOOPS(float, 32, 8, fmaf, fmaf, sqrtf, 0)
LAYER_NORM_LOOPS(double, 64, 4, fma, fused64, sqrt, 1)

/* ---- the module's functions ---------------------------------------------------------------- */

/* The element count of a buffer of items of `size` bytes, checked against n (or taken as n when
 * n < 0); 1 is accepted as a broadcast operand.  -1 with an exception set when it fits neither. */
static Py_ssize_t count(const Py_buffer *b, Py_ssize_t size, Py_ssize_t n) {
    if (b->len % size) {
        PyErr_SetString(PyExc_ValueError, "buffer length is not a multiple of the item size");
        return -1;
    }
    Py_ssize_t k = b->len / size;
    if (n >= 0 && k != n && k != 1) {
        PyErr_SetString(PyExc_ValueError, "operand sizes differ");
        return -1;
    }
    return k;
}

LOOP static void expf_loop(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_expf(x[i]);
}

LOOP static void logf_loop(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_logf(x[i]);
}

/* the fused multiply-adds' loops: operands of n elements or one (stride 1 or 0) */
typedef void (*fused_loop)(const void *, const void *, const void *, void *, Py_ssize_t,
                           Py_ssize_t, Py_ssize_t, Py_ssize_t);

LOOP static void fma32_loop(const void *a_, const void *b_, const void *c_, void *y_,
                            Py_ssize_t n, Py_ssize_t sa, Py_ssize_t sb, Py_ssize_t sc) {
    const float *a = a_, *b = b_, *c = c_;
    float *y = y_;
    for (Py_ssize_t i = 0; i < n; i++) y[i] = fused32(a[i * sa], b[i * sb], c[i * sc]);
}

LOOP static void fma_add_loop(const double *p, const float *c, float *y, Py_ssize_t n,
                              Py_ssize_t sp, Py_ssize_t sc) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = add_once(p[i * sp], c[i * sc]);
}

LOOP static void fma64_loop(const void *a_, const void *b_, const void *c_, void *y_,
                            Py_ssize_t n, Py_ssize_t sa, Py_ssize_t sb, Py_ssize_t sc) {
    const double *a = a_, *b = b_, *c = c_;
    double *y = y_;
    for (Py_ssize_t i = 0; i < n; i++) y[i] = fused64(a[i * sa], b[i * sb], c[i * sc]);
}

/* the activations' backward kernels (unary.py tanh_backward, threshold_backward): grad's
 * items n or one (stride 1 or 0) */
/* 1 - y * y as fused32(-y, y, 1) gives it: fmaf (one vector instruction where the CPU has FMA;
 * an infinite y gives -inf as the emulation does), and for a NaN y the NaN of -y, quieted, made
 * from its bits (the compiler treats NaNs' signs as its own to choose) */
INLINE float one_minus_square(float y) {
    float v = fmaf(-y, y, 1.0f);
    return isnan(y) ? from_bits((to_bits(y) ^ 0x80000000u) | 0x00400000u) : v;
}

LOOP static void tanh_backward32_loop(const float *g, const float *y, float *out, Py_ssize_t n,
                                      Py_ssize_t sg) {
    if (sg)
        for (Py_ssize_t i = 0; i < n; i++) out[i] = g[i] * one_minus_square(y[i]);
    else
        for (Py_ssize_t i = 0; i < n; i++) out[i] = g[0] * one_minus_square(y[i]);
}

/* (the grad of n items or one as two loops: one the compiler can vectorise) */
LOOP static void threshold_backward32_loop(const float *g, const float *x, float t, float *out,
                                           Py_ssize_t n, Py_ssize_t sg) {
    if (sg)
        for (Py_ssize_t i = 0; i < n; i++) out[i] = x[i] <= t ? 0.0f : g[i];
    else
        for (Py_ssize_t i = 0; i < n; i++) out[i] = x[i] <= t ? 0.0f : g[0];
}

LOOP static void threshold_backward64_loop(const double *g, const double *x, double t,
                                           double *out, Py_ssize_t n, Py_ssize_t sg) {
    if (sg)
        for (Py_ssize_t i = 0; i < n; i++) out[i] = x[i] <= t ? 0.0 : g[i];
    else
        for (Py_ssize_t i = 0; i < n; i++) out[i] = x[i] <= t ? 0.0 : g[0];
}

/* ---- oneDNN's float32 gelu_erf (onednn.py), as its JIT kernels compute it ------------------
 * Every vfmadd one fmaf, every vmulps/vaddps/vdivps one float operation, vminps/vmaxps as
 * a where a < b (a > b) else b (the second operand where either is NaN), the sign flips on the
 * bits. */

INLINE float xor_sign(float x, uint32_t sign) { return from_bits(to_bits(x) ^ sign); }

/* exp_compute_vector_fwd: 2 * 2**(n - 1) * P(r); NaN clamps to ln FLT_MAX, as vminps does */
INLINE float onednn_exp(float x) {
    const float ln_flt_max = from_bits(0x42B17218u), ln_flt_min = from_bits(0xC2AEAC50u);
    uint32_t below = -(uint32_t)isless(x, ln_flt_min);
    x = pick(-(uint32_t)isless(x, ln_flt_max), x, ln_flt_max);  /* (quiet comparisons and */
    x = pick(-(uint32_t)isgreater(x, ln_flt_min), x, ln_flt_min);  /* selects: vectorised) */
    float v = x * from_bits(0x3FB8AA3Bu) + 0.5f;  /* in [-125.5, 128.5]: floor as rint, */
    float fx = rintf(v);                             /* less one where that rounded up */
    fx = fx - pick(-(uint32_t)isgreater(fx, v), 1.0f, 0.0f);
    float r = fmaf(-fx, from_bits(0x3F317218u), x);
    int32_t n1 = (int32_t)(fx - 1.0f);
    float scale = pick(below, 0.0f, from_bits((uint32_t)(n1 + 127) << 23));
    float p = from_bits(0x3C07CFCEu);
    p = fmaf(p, r, from_bits(0x3D2B9D0Du));
    p = fmaf(p, r, from_bits(0x3E2AAD40u));
    p = fmaf(p, r, from_bits(0x3EFFFEE3u));
    p = fmaf(p, r, from_bits(0x3F7FFFFBu));
    p = fmaf(p, r, 1.0f);
    return (p * scale) * 2.0f;
}

/* 1 - t * P(t) * e for |x| = a, e = exp(-x * x), t = 1 / (p a + 1) */
INLINE float onednn_erf_as(float a, float e) {
    float t = 1.0f / fmaf(from_bits(0x3EA7BA05u), a, 1.0f);
    float q = xor_sign(e, 0x80000000u) * t;
    float p = from_bits(0x3F87DC22u);
    p = fmaf(p, t, from_bits(0xBFBA00E3u));
    p = fmaf(p, t, from_bits(0x3FB5F0E3u));
    p = fmaf(p, t, from_bits(0xBE91A98Eu));
    p = fmaf(p, t, from_bits(0x3E827906u));
    return fmaf(q, p, 1.0f);
}

INLINE float onednn_gelu_avx2(float s) {
    float x = s * from_bits(0x3F3504F3u);
    float e = onednn_exp(xor_sign(x * x, 0x80000000u));
    float erf = xor_sign(onednn_erf_as(fabsf(x), e), to_bits(s) & 0x80000000u);
    float half = s * 0.5f;
    return fmaf(erf, half, half);
}

/* gelu_erf_minimax_approx_compute_vector_fwd; pol[deg * 25 + idx], the table of onednn.py */
INLINE float onednn_gelu_avx512(float s, const float *pol) {
    float pos = from_bits(to_bits(s) & 0x7FFFFFFFu);
    int32_t idx = (int32_t)(to_bits(pos) + 0xC21FFFFFu) >> 21;
    idx = idx < 1 ? 1 : idx > 24 ? 24 : idx;
    if (from_bits(0x40B15CEEu) < pos) idx = 23;
    float p = pol[5 * 25 + idx];
    for (int deg = 4; deg >= 0; deg--) p = fmaf(p, pos, pol[deg * 25 + idx]);
    p = xor_sign(p, to_bits(s) & 0x80000000u);
    return (s * (p + 1.0f)) * 0.5f;
}

/* gelu_erf_compute_vector_bwd, times the gradient */
INLINE float onednn_gelu_backward(float g, float s) {
    float r = s * from_bits(0x3F3504F3u);
    float e = onednn_exp(xor_sign(r * r, 0x80000000u));
    float t = (r * from_bits(0x3F106EBAu)) * e;
    float erf = xor_sign(onednn_erf_as(fabsf(r), e), to_bits(r) & 0x80000000u);
    return fmaf(erf, 0.5f, t + 0.5f) * g;
}

LOOP static void gelu_avx2_loop(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = onednn_gelu_avx2(x[i]);
}

LOOP static void gelu_backward_loop(void *gv, void *xv, void *outv, Py_ssize_t n) {
    const float *restrict g = gv, *restrict x = xv;
    float *restrict out = outv;
    for (Py_ssize_t i = 0; i < n; i++) out[i] = onednn_gelu_backward(g[i], x[i]);
}

/* unary32(x, out) and unary64: a loop over x of n items into out, of as many */
#define UNARY(T, NAME)                                                                        \
static PyObject *NAME(PyObject *args, void (*loop)(const T *, T *, Py_ssize_t)) {             \
    Py_buffer x, out;                                                                         \
    if (!PyArg_ParseTuple(args, "y*w*", &x, &out)) return NULL;                               \
    PyObject *result = NULL;                                                                  \
    Py_ssize_t n = count(&out, sizeof(T), -1);                                                \
    if (n >= 0 && count(&x, sizeof(T), n) == n) {                                             \
        Py_BEGIN_ALLOW_THREADS                                                                \
        loop(x.buf, out.buf, n);                                                              \
        Py_END_ALLOW_THREADS                                                                  \
        result = Py_NewRef(Py_None);                                                          \
    } else if (!PyErr_Occurred()) {                                                           \
        PyErr_SetString(PyExc_ValueError, "operand sizes differ");                            \
    }                                                                                         \
    PyBuffer_Release(&x);                                                                     \
    PyBuffer_Release(&out);                                                                   \
    return result;                                                                            \
}
UNARY(float, unary32)
UNARY(double, unary64)

static PyObject *py_gelu_avx2(PyObject *self, PyObject *args) {
    return unary32(args, gelu_avx2_loop);
}

/* gelu_avx512(x, out, pol): the minimax forward; pol the 6 x 25 float32 coefficients */
static PyObject *py_gelu_avx512(PyObject *self, PyObject *args) {
    Py_buffer x, out, pol;
    if (!PyArg_ParseTuple(args, "y*w*y*", &x, &out, &pol)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = count(&out, 4, -1);
    if (n >= 0 && count(&x, 4, n) == n && pol.len == 6 * 25 * 4) {
        const float *a = x.buf, *c = pol.buf;
        float *y = out.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) y[i] = onednn_gelu_avx512(a[i], c);
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "gelu_avx512: bad sizes");
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    PyBuffer_Release(&pol);
    return result;
}

/* loop(a, b, c, n) over three buffers of n float32 items each, parsed by format ("y*y*w*":
 * two read and one written, "y*w*w*": one read and two written) */
static PyObject *float32x3(PyObject *args, const char *format,
                           void (*loop)(void *, void *, void *, Py_ssize_t)) {
    Py_buffer b[3];
    if (!PyArg_ParseTuple(args, format, &b[0], &b[1], &b[2])) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = count(&b[0], 4, -1);
    if (n >= 0 && count(&b[1], 4, n) == n && count(&b[2], 4, n) == n) {
        Py_BEGIN_ALLOW_THREADS
        loop(b[0].buf, b[1].buf, b[2].buf, n);
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "operand sizes differ");
    }
    for (int i = 0; i < 3; i++) PyBuffer_Release(&b[i]);
    return result;
}

/* gelu_backward(grad, x, out): oneDNN's derivative times grad, all of n float32 items */
static PyObject *py_gelu_backward(PyObject *self, PyObject *args) {
    return float32x3(args, "y*y*w*", gelu_backward_loop);
}
static PyObject *py_expf(PyObject *self, PyObject *args) { return unary32(args, expf_loop); }
static PyObject *py_logf(PyObject *self, PyObject *args) { return unary32(args, logf_loop); }
static PyObject *py_log1pf(PyObject *self, PyObject *args) { return unary32(args, log1pf_loop); }
static PyObject *py_expm1f(PyObject *self, PyObject *args) { return unary32(args, expm1f_loop); }

/* fma32(a, b, c, out) and fma64: a * b + c of arrays of items of `size` bytes */
static PyObject *fused(PyObject *args, Py_ssize_t size, fused_loop loop) {
    Py_buffer a, b, c, out;
    if (!PyArg_ParseTuple(args, "y*y*y*w*", &a, &b, &c, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = count(&out, size, -1), na, nb, nc;
    if (n >= 0 && (na = count(&a, size, n)) >= 0 && (nb = count(&b, size, n)) >= 0
            && (nc = count(&c, size, n)) >= 0) {
        Py_BEGIN_ALLOW_THREADS
        loop(a.buf, b.buf, c.buf, out.buf, n, na == n, nb == n, nc == n);
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    PyBuffer_Release(&c);
    PyBuffer_Release(&out);
    return result;
}

/* poly64(powers, coeffs, out): sleef64._poly, SLEEF's POLYn, element by element: powers are
 * x, x**2, x**4, x**8 (as many as the coefficients need; each n items or one), coeffs the
 * polynomial's, highest first; the high half of the coefficients (all but the largest power of
 * two below their count) times that power of x, fused with the low half, recursively: the same
 * fused64 calls in the same order as the Python's fma64 per term */
static double poly_of(const double *x, const double *c, Py_ssize_t n) {
    if (n == 1) return c[0];
    Py_ssize_t k = 1;
    int j = 0;
    while (2 * k <= n - 1) {
        k *= 2;
        j++;
    }
    double high = poly_of(x, c, n - k), low = poly_of(x, c + (n - k), k);
    return fused64(x[j], high, low);
}

LOOP static void poly64_loop(const double *const *pw, const Py_ssize_t *step, int np_,
                             const double *c, Py_ssize_t nc, double *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        double x[4];
        for (int j = 0; j < np_; j++) x[j] = pw[j][i * step[j]];
        y[i] = poly_of(x, c, nc);
    }
}

/* ---- SLEEF's double exp and log (sleef64.py exp and log) ----------------------------------- */

/* poly_of's splits for the counts these two use, written out so that they inline: x the
 * powers (x, x**2, x**4, x**8), c the coefficients highest first */
INLINE double poly2(const double *x, const double *c) { return fused64(x[0], c[0], c[1]); }
INLINE double poly3(const double *x, const double *c) {
    return fused64(x[1], c[0], poly2(x, c + 1));
}
INLINE double poly4(const double *x, const double *c) {
    return fused64(x[1], poly2(x, c), poly2(x, c + 2));
}
INLINE double poly8(const double *x, const double *c) {
    return fused64(x[2], poly4(x, c), poly4(x, c + 4));
}

/* vpow2i_vd_vi: 2**q from its exponent bits; vldexp2_vd_vd_vi: two roundings */
INLINE double pow2i64(int64_t q) {
    uint64_t u = (uint64_t)(q + 0x3FF) << 52;
    double f;
    memcpy(&f, &u, 8);
    return f;
}

INLINE double ldexp2_64(double d, int64_t q) {
    int64_t h = q >> 1;  /* arithmetic shift, as NumPy's right_shift of int64 */
    return (d * pow2i64(h)) * pow2i64(q - h);
}

static const double EXP64_POLY[10] = {
    +0.2081276378237164457e-8, +0.2511210703042288022e-7, +0.2755762628169491192e-6,
    +0.2755723402025388239e-5, +0.2480158687479686264e-4, +0.1984126989855865850e-3,
    +0.1388888888914497797e-2, +0.8333333333314938210e-2, +0.4166666666666602598e-1,
    +0.1666666666666669072e+0};

INLINE double sleef_exp64(double d) {
    const double r_ln2 = 1.442695040888963407359924681001892137426645954152985934135449406931;
    const double l2u = .69314718055966295651160180568695068359375;
    const double l2l = .28235290563031577122588448175013436025525412068e-12;
    if (isnan(d)) return d;
    if (d > 709.78271114955742909217217426) return INFINITY;
    if (d < -1000.0) return 0.0;
    double u = rint(d * r_ln2);
    int64_t q = fabs(u) < 2147483648.0 ? (int64_t)u : 0;  /* vrint_vi_vd (sleef64._int) */
    double s = fused64(u, -l2u, d);
    s = fused64(u, -l2l, s);
    double x[4];
    x[0] = s;
    x[1] = s * s;
    x[2] = x[1] * x[1];
    x[3] = x[2] * x[2];
    u = fused64(x[3], poly2(x, EXP64_POLY), poly8(x, EXP64_POLY + 2));  /* POLY10 */
    u = fused64(u, s, 0.5);
    u = fused64(u, s, 1.0);
    u = fused64(u, s, 1.0);
    return ldexp2_64(u, q);
}

/* vgetexp: floor(log2|x|) as a double (frexp's exponent less one); -inf for 0, |x| for inf
 * and NaN.  vgetmant (_MM_MANT_NORM_p75_1p5): the significand scaled into [0.75, 1.5) */
INLINE double getexp64(double x) {
    if (x == 0.0) return -INFINITY;
    if (!isfinite(x)) return fabs(x);
    uint64_t b;
    memcpy(&b, &x, 8);
    int e = (int)((b >> 52) & 0x7FF);
    if (e == 0) {  /* subnormal */
        frexp(x, &e);
        return (double)(e - 1);
    }
    return (double)(e - 1023);
}

INLINE double getmant64(double x) {
    uint64_t b;
    memcpy(&b, &x, 8);
    double m;
    if (((b >> 52) & 0x7FF) - 1u < 0x7FEu) {  /* normal: the significand under a zero exponent */
        b = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
        memcpy(&m, &b, 8);
    } else {
        int e;
        m = frexp(fabs(x), &e) * 2.0;
    }
    return m >= 1.5 ? m * 0.5 : m;
}

static const double LOG64_POLY[7] = {
    0.1532076988502701353e+0, 0.1525629051003428716e+0, 0.1818605932937785996e+0,
    0.2222214519839380009e+0, 0.2857142932794299317e+0, 0.3999999999635251990e+0,
    0.6666666666667333541e+0};

INLINE double sleef_log64(double d) {
    const double ln2_hi = 0.693147180559945286226764, ln2_lo = 2.319046813846299558417771e-17;
    if (isnan(d)) return d;
    if (d == 0.0) return -INFINITY;
    if (d < 0.0) return NAN;
    if (d == INFINITY) return INFINITY;
    double e = getexp64(d * (1.0 / 0.75));
    if (e == INFINITY) e = 1024.0;
    double m = getmant64(d);
    /* x = dddiv(ddadd2(-1, m), ddadd2(1, m)) */
    double n0 = -1.0 + m, v = n0 - -1.0;
    double n1 = (-1.0 - (n0 - v)) + (m - v);
    double d0 = 1.0 + m;
    v = d0 - 1.0;
    double d1 = (1.0 - (d0 - v)) + (m - v);
    double t = 1.0 / d0;
    double x0 = n0 * t;
    double u = fused64(t, n0, -x0);
    double w = fused64(-d1, t, fused64(-d0, t, 1.0));
    double x1 = fused64(x0, w, fused64(n1, t, u));
    double p[3];
    p[0] = x0 * x0;
    p[1] = p[0] * p[0];
    p[2] = p[1] * p[1];
    t = fused64(p[2], poly3(p, LOG64_POLY), poly4(p, LOG64_POLY + 3));  /* POLY7 */
    /* s = ddmul(LN2, e), then ddadd(s, 2x), then ddadd(s, x2 x t) */
    double s0 = ln2_hi * e;
    double s1 = fused64(ln2_lo, e, fused64(ln2_hi, e, -s0));
    double a0 = s0 + x0 * 2.0;
    double a1 = (((s0 - a0) + x0 * 2.0) + s1) + x1 * 2.0;
    double y = (p[0] * x0) * t;
    double b0 = a0 + y;
    double b1 = ((a0 - b0) + y) + a1;
    return b0 + b1;
}

/* vrint_vi_vd of an integral double (sleef64._int: NaN and |u| >= 2**31 give 0) */
INLINE int64_t int64_of(double u) { return fabs(u) < 2147483648.0 ? (int64_t)u : 0; }

/* xlog1p (sleef64.log1p): the scaling by 2**-e exact, no clamp above 1e307 */
INLINE double sleef_log1p64(double d) {
    const double ln2_hi = 0.693147180559945286226764, ln2_lo = 2.319046813846299558417771e-17;
    double dp1 = d + 1.0;
    double e = getexp64(dp1 * (1.0 / 0.75));
    if (e == INFINITY) e = 1024.0;
    double t = ldexp(1.0, (int)-int64_of(e));
    double m = fused64(d, t, t - 1.0);
    double s0 = ln2_hi * e;
    double s1 = fused64(ln2_lo, e, fused64(ln2_hi, e, -s0));
    /* x = dddiv((m, 0), (2 + m, (2 - (2 + m)) + m)) */
    double d0 = 2.0 + m, d1 = (2.0 - d0) + m;
    double r = 1.0 / d0;
    double x0 = m * r;
    double u = fused64(r, m, -x0);
    double w = fused64(-d1, r, fused64(-d0, r, 1.0));
    double x1 = fused64(x0, w, fused64(0.0, r, u));
    double p[3];
    p[0] = x0 * x0;
    p[1] = p[0] * p[0];
    p[2] = p[1] * p[1];
    t = fused64(p[2], poly3(p, LOG64_POLY), poly4(p, LOG64_POLY + 3));  /* POLY7 */
    double a0 = s0 + x0 * 2.0;
    double a1 = (((s0 - a0) + x0 * 2.0) + s1) + x1 * 2.0;
    double y = (p[0] * x0) * t;
    double b0 = a0 + y;
    double b1 = ((a0 - b0) + y) + a1;
    double res = b0 + b1;
    if (d == INFINITY) res = INFINITY;
    if (d < -1.0) res = NAN;
    if (d == -1.0) res = -INFINITY;
    if (d == 0.0 && signbit(d)) res = -0.0;
    return isnan(d) ? d : res;
}

static const double EXPK2_64_POLY[10] = {
    +0.1602472219709932072e-9, +0.2092255183563157007e-8, +0.2505230023782644465e-7,
    +0.2755724800902135303e-6, +0.2755731892386044373e-5, +0.2480158735605815065e-4,
    +0.1984126984148071858e-3, +0.1388888888886763255e-2, +0.8333333333333347095e-2,
    +0.4166666666666669905e-1};

/* xexpm1 (sleef64.expm1): expk2 of (a, 0), less 1 as a double-double */
INLINE double sleef_expm1_64(double a) {
    const double r_ln2 = 1.442695040888963407359924681001892137426645954152985934135449406931;
    const double l2u = .69314718055966295651160180568695068359375;
    const double l2l = .28235290563031577122588448175013436025525412068e-12;
    double h = a, l = 0.0;
    double dq = rint((h + l) * r_ln2);
    int64_t q = int64_of(dq);
    double y = dq * -l2u, s0 = h + y, v = s0 - h;  /* ddadd2(d, dq * -L2U) */
    double s1 = ((h - (s0 - v)) + (y - v)) + l;
    y = dq * -l2l;
    h = s0 + y;
    v = h - s0;
    s1 = ((s0 - (h - v)) + (y - v)) + s1;
    s0 = h;
    double q0 = s0 * s0;  /* s2 = ddsqu(s), s4 = ddsqu(s2) */
    double q1 = fused64(s0 + s0, s1, fused64(s0, s0, -q0));
    double f0 = q0 * q0;
    double f1 = fused64(q0 + q0, q1, fused64(q0, q0, -f0));
    double x[4] = {s0, q0, f0, f0 * f0};
    double u = fused64(x[3], poly2(x, EXPK2_64_POLY), poly8(x, EXPK2_64_POLY + 2));  /* POLY10 */
    /* t = 0.5 + s * (1/6), then 1 + t * s twice, then t + s4 * u */
    const double sixth = +0.1666666666666666574e+0;
    double m0 = s0 * sixth, m1 = fused64(s1, sixth, fused64(s0, sixth, -m0));
    double t0 = 0.5 + m0, t1 = ((0.5 - t0) + m0) + m1;
    for (int k = 0; k < 2; k++) {
        m0 = t0 * s0;
        m1 = fused64(t0, s1, fused64(t1, s0, fused64(t0, s0, -m0)));
        double n0 = 1.0 + m0;
        t1 = ((1.0 - n0) + m0) + m1;
        t0 = n0;
    }
    m0 = f0 * u;
    m1 = fused64(f1, u, fused64(f0, u, -m0));
    double n0 = t0 + m0;
    t1 = (((t0 - n0) + m0) + t1) + m1;
    t0 = n0;
    if (a < -1000.0) {
        t0 = 0.0;
        t1 = 0.0;
    } else {
        t0 = ldexp2_64(t0, q);
        t1 = ldexp2_64(t1, q);
    }
    double e0 = t0 + -1.0, w = e0 - t0;  /* ddadd2(expk2, -1) */
    double e1 = ((t0 - (e0 - w)) + (-1.0 - w)) + t1;
    double res = e0 + e1;
    if (a > 709.782712893383996732223) res = INFINITY;
    if (a < -36.736800569677101399113302437) res = -1.0;
    if (a == 0.0 && signbit(a)) res = -0.0;
    return isnan(a) ? a : res;
}

LOOP static void log1p64_loop(const double *x, double *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_log1p64(x[i]);
}

LOOP static void expm1_64_loop(const double *x, double *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_expm1_64(x[i]);
}

/* ---- SLEEF's xerf_u1, double (sleef64.erf): a float64 GELU's vector lanes ----------------- */

static const double EXPK64_POLY[10] = {
    2.51069683420950419527139e-08, 2.76286166770270649116855e-07, 2.75572496725023574143864e-06,
    2.48014973989819794114153e-05, 0.000198412698809069797676111, 0.0013888888939977128960529,
    0.00833333333332371417601081, 0.0416666666665409524128449, 0.166666666666666740681535,
    0.500000000000000999200722};

/* double-double helpers of sleef64.py (dd.h, FMA variants), as pairs h, l */
typedef struct { double h, l; } dd;
INLINE dd dd_add(dd x, dd y) {  /* _add_d2_d2 */
    double s = x.h + y.h;
    return (dd){s, (((x.h - s) + y.h) + x.l) + y.l};
}
INLINE dd dd_add2_d(dd x, double y) {  /* _add2_d2_d */
    double s = x.h + y, v = s - x.h;
    return (dd){s, ((x.h - (s - v)) + (y - v)) + x.l};
}
INLINE dd d_add_dd(double x, dd y) {  /* _add_d_d2 */
    double s = x + y.h;
    return (dd){s, ((x - s) + y.h) + y.l};
}
INLINE dd dd_mul_d(dd x, double y) {  /* _mul_d2_d */
    double s = x.h * y;
    return (dd){s, fused64(x.l, y, fused64(x.h, y, -s))};
}
INLINE dd dd_squ(dd x) {  /* _squ */
    double s = x.h * x.h;
    return (dd){s, fused64(x.h + x.h, x.l, fused64(x.h, x.h, -s))};
}
INLINE dd dd_rec(dd d) {  /* _rec2 */
    double t = 1.0 / d.h;
    return (dd){t, t * fused64(-d.l, t, fused64(-d.h, t, 1.0))};
}

/* SLEEF's expk: exp of a double-double, as a double (sleef64._expk) */
INLINE double sleef_expk64(dd d) {
    const double r_ln2 = 1.442695040888963407359924681001892137426645954152985934135449406931;
    const double l2u = .69314718055966295651160180568695068359375;
    const double l2l = .28235290563031577122588448175013436025525412068e-12;
    double dq = rint((d.h + d.l) * r_ln2);
    int64_t q = int64_of(dq);
    dd s = dd_add2_d(d, dq * -l2u);
    s = dd_add2_d(s, dq * -l2l);
    double n = s.h + s.l;  /* _normalize */
    s = (dd){n, (s.h - n) + s.l};
    double x[4];
    x[0] = s.h;
    x[1] = s.h * s.h;
    x[2] = x[1] * x[1];
    x[3] = x[2] * x[2];
    double u = fused64(x[3], poly2(x, EXPK64_POLY), poly8(x, EXPK64_POLY + 2));  /* POLY10 */
    dd t = d_add_dd(1.0, s);
    t = dd_add(t, dd_mul_d(dd_squ(s), u));
    return d.h < -1000.0 ? 0.0 : ldexp2_64(t.h + t.l, q);
}

static const double ERF64_POLY21[2][21] = {
{
    -0.2083271002525222097e-14, +0.7151909970790897009e-13, -0.1162238220110999364e-11,
    +0.1186474230821585259e-10, -0.8499973178354613440e-10, +0.4507647462598841629e-9,
    -0.1808044474288848915e-8, +0.5435081826716212389e-8, -0.1143939895758628484e-7,
    +0.1215442362680889243e-7, +0.1669878756181250355e-7, -0.9808074602255194288e-7,
    +0.1389000557865837204e-6, +0.2945514529987331866e-6, -0.1842918273003998283e-5,
    +0.3417987836115362136e-5, +0.3860236356493129101e-5, -0.3309403072749947546e-4,
    +0.1060862922597579532e-3, +0.2323253155213076174e-3, +0.1490149719145544729e-3},
{
    -0.4024015130752621932e-18, +0.3847193332817048172e-16, -0.1749316241455644088e-14,
    +0.5029618322872872715e-13, -0.1025221466851463164e-11, +0.1573695559331945583e-10,
    -0.1884658558040203709e-9, +0.1798167853032159309e-8, -0.1380745342355033142e-7,
    +0.8525705726469103499e-7, -0.4160448058101303405e-6, +0.1517272660008588485e-5,
    -0.3341634127317201697e-5, -0.2515023395879724513e-5, +0.6539731269664907554e-4,
    -0.3551065097428388658e-3, +0.1210736097958368864e-2, -0.2605566912579998680e-2,
    +0.1252823202436093193e-2, +0.1820191395263313222e-1, -0.1021557155453465954e+0}};
static const double ERF64_DD[2][3][2] = {
    {{0.0092877958392275604405, 7.9287559463961107493e-19}, {0.042275531758784692937, 1.3785226620501016138e-19}, {0.07052369794346953491, 9.5846628070792092842e-19}},
    {{-0.63691044383641748361, -2.4249477526539431839e-17}, {-1.1282926061803961737, -6.2970338860410996505e-17}, {-1.2261313785184804967e-05, -5.5329707514490107044e-22}}};

/* xerf_u1's -(t2 - 1) for |a| = x on one side of 2.5 (branch 0 at or below: sleef64._erf_part) */
INLINE double sleef_erf_part64(double x, int branch) {
    const double *c = ERF64_POLY21[branch];
    double p[4];
    p[0] = x;
    p[1] = x * x;
    p[2] = p[1] * p[1];
    p[3] = p[2] * p[2];
    double x16 = p[3] * p[3];
    /* POLY21: x16 * POLY5(c[0..4]) + POLY16(c[5..20]) */
    double high5 = fused64(p[2], c[0], poly4(p, c + 1));
    double low16 = fused64(p[3], poly8(p, c + 5), poly8(p, c + 13));
    double t = fused64(x16, high5, low16);
    const double (*k)[2] = ERF64_DD[branch];
    dd c2 = {k[0][0], k[0][1]}, c1 = {k[1][0], k[1][1]}, c0 = {k[2][0], k[2][1]};
    dd high = dd_add(c2, dd_mul_d((dd){t, 0.0}, x));
    dd t2 = dd_add(dd_add(c0, dd_mul_d(c1, x)), dd_mul_d(high, x * x));
    if (branch == 0) {
        t2 = d_add_dd(1.0, dd_mul_d(t2, x));
        for (int i = 0; i < 4; i++) t2 = dd_squ(t2);
        t2 = dd_rec(t2);
    } else {
        t2 = (dd){sleef_expk64(t2), 0.0};
    }
    t2 = dd_add2_d(t2, -1.0);
    return -(t2.h + t2.l);
}

INLINE double sleef_erf64(double a) {
    double x = fabs(a);
    double z = sleef_erf_part64(x, x <= 2.5 ? 0 : 1);
    if (x < 1e-8) z = x * 1.12837916709551262756245475959;
    if (x >= 6.0 || isinf(a)) z = 1.0;
    if (a == 0.0) z = 0.0;
    uint64_t za, aa;  /* vmulsign: z's sign flipped where a's is set */
    memcpy(&za, &z, 8);
    memcpy(&aa, &a, 8);
    za ^= aa & 0x8000000000000000ull;
    memcpy(&z, &za, 8);
    return z;
}

LOOP static void erf64_loop(const double *x, double *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_erf64(x[i]);
}

LOOP static void exp64_loop(const double *x, double *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_exp64(x[i]);
}

LOOP static void log64_loop(const double *x, double *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_log64(x[i]);
}

LANE_SUM(double, lane_sum64, 0)
/* float64's g - e * s: one fused multiply-add (_msub's madd, fma64(-e, s, g)) */
INLINE double msub64(double e, double s, double g) { return fused64(-e, s, g); }
LOG_SOFTMAX_LOOPS(double, 64, sleef_exp64, sleef_log64, lane_sum64, msub64)

static PyObject *py_exp64(PyObject *self, PyObject *args) { return unary64(args, exp64_loop); }
static PyObject *py_log64(PyObject *self, PyObject *args) { return unary64(args, log64_loop); }
static PyObject *py_log1p64(PyObject *self, PyObject *args) {
    return unary64(args, log1p64_loop);
}
static PyObject *py_expm1_64(PyObject *self, PyObject *args) {
    return unary64(args, expm1_64_loop);
}
static PyObject *py_erf64(PyObject *self, PyObject *args) { return unary64(args, erf64_loop); }

static PyObject *py_poly64(PyObject *self, PyObject *args) {
    PyObject *powers;
    Py_buffer coeffs, out, bufs[4];
    if (!PyArg_ParseTuple(args, "O!y*w*", &PyTuple_Type, &powers, &coeffs, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t got = 0, np_ = PyTuple_GET_SIZE(powers), n = count(&out, 8, -1);
    Py_ssize_t nc = count(&coeffs, 8, -1), need = 0;
    for (Py_ssize_t k = 1; 2 * k <= nc - 1; k *= 2) need++;  /* the highest power's index */
    if (n < 0 || nc < 0) goto done;
    if (nc < 1 || np_ < 1 || np_ > 4 || (nc > 1 && need >= np_)) {
        PyErr_SetString(PyExc_ValueError, "poly64: 1 to 4 powers, enough for the coefficients");
        goto done;
    }
    const double *pw[4];
    Py_ssize_t step[4];
    for (; got < np_; got++) {
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(powers, got), &bufs[got], PyBUF_SIMPLE) < 0)
            goto done;
        Py_ssize_t k = count(&bufs[got], 8, n);
        if (k < 0) {
            got++;
            goto done;
        }
        pw[got] = bufs[got].buf;
        step[got] = k == n;
    }
    Py_BEGIN_ALLOW_THREADS
    poly64_loop(pw, step, (int)np_, coeffs.buf, nc, out.buf, n);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    for (Py_ssize_t i = 0; i < got; i++) PyBuffer_Release(&bufs[i]);
    PyBuffer_Release(&coeffs);
    PyBuffer_Release(&out);
    return result;
}

/* tanh_backward32(grad, y, out): float32 grad * (1 - y * y), the difference fused */
static PyObject *py_tanh_backward32(PyObject *self, PyObject *args) {
    Py_buffer g, y, out;
    if (!PyArg_ParseTuple(args, "y*y*w*", &g, &y, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = count(&out, 4, -1), ng;
    if (n >= 0 && (ng = count(&g, 4, n)) >= 0 && count(&y, 4, n) == n) {
        Py_BEGIN_ALLOW_THREADS
        tanh_backward32_loop(g.buf, y.buf, out.buf, n, ng == n);
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "operand sizes differ");
    }
    PyBuffer_Release(&g);
    PyBuffer_Release(&y);
    PyBuffer_Release(&out);
    return result;
}

/* threshold_backward(grad, x, threshold, out): 0 where x <= threshold, else grad (a NaN x
 * passes grad), float32 or float64 as out */
static PyObject *py_threshold_backward(PyObject *self, PyObject *args) {
    Py_buffer g, x, out;
    double t;
    if (!PyArg_ParseTuple(args, "y*y*dw*", &g, &x, &t, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t size = out.itemsize == 8 ? 8 : 4;
    Py_ssize_t n = count(&out, size, -1), ng;
    if (n >= 0 && (ng = count(&g, size, n)) >= 0 && count(&x, size, n) == n) {
        Py_BEGIN_ALLOW_THREADS
        if (size == 8)
            threshold_backward64_loop(g.buf, x.buf, t, out.buf, n, ng == n);
        else
            threshold_backward32_loop(g.buf, x.buf, (float)t, out.buf, n, ng == n);
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "operand sizes differ");
    }
    PyBuffer_Release(&g);
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    return result;
}

/* nll_scatter(target, out, value, ignore_index): value at out[r, target[r]] for each row r
 * whose target is a class (not ignore_index, in [0, classes)); out is (rows, classes) of
 * float32 or float64 zeros, target int64 (reduce.py nll_grad) */
static PyObject *py_nll_scatter(PyObject *self, PyObject *args) {
    Py_buffer t, out;
    double value;
    long long ignore;
    if (!PyArg_ParseTuple(args, "y*w*dL", &t, &out, &value, &ignore)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = t.len / 8, size = out.itemsize == 8 ? 8 : 4;
    if (t.len % 8 || out.len % size || (rows && (out.len / size) % rows)) {
        PyErr_SetString(PyExc_ValueError, "nll_scatter: operand sizes differ");
    } else {
        const int64_t *target = t.buf;
        Py_ssize_t classes = rows ? out.len / size / rows : 0;
        for (Py_ssize_t r = 0; r < rows; r++) {
            int64_t k = target[r];
            if (k == ignore || k < 0 || k >= classes) continue;
            if (size == 8)
                ((double *)out.buf)[r * classes + k] = value;
            else
                ((float *)out.buf)[r * classes + k] = (float)value;
        }
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&t);
    PyBuffer_Release(&out);
    return result;
}

/* scatter_add(out, positions, values, dbl): out[positions[i]] += values[i] for i in order (the
 * additions numpy.add.at makes), float64 with dbl else float32; int64 positions, each checked */
static PyObject *py_scatter_add(PyObject *self, PyObject *args) {
    Py_buffer out, p, v;
    int dbl;
    if (!PyArg_ParseTuple(args, "w*y*y*p", &out, &p, &v, &dbl)) return NULL;
    Py_ssize_t size = dbl ? 8 : 4, n = p.len / 8, m = out.len / size;
    if (p.len % 8 || out.len % size || v.len != n * size) {
        PyErr_SetString(PyExc_ValueError, "scatter_add: operand sizes differ");
    } else {
        const int64_t *pos = p.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            if (pos[i] < 0 || pos[i] >= m) {
                PyErr_SetString(PyExc_IndexError, "scatter_add: position out of range");
                break;
            }
        if (!PyErr_Occurred()) {
            if (dbl) {
                double *o = out.buf;
                const double *x = v.buf;
                for (Py_ssize_t i = 0; i < n; i++) o[pos[i]] = o[pos[i]] + x[i];
            } else {
                float *o = out.buf;
                const float *x = v.buf;
                for (Py_ssize_t i = 0; i < n; i++) o[pos[i]] = o[pos[i]] + x[i];
            }
        }
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&p);
    PyBuffer_Release(&v);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_fma32(PyObject *self, PyObject *args) { return fused(args, 4, fma32_loop); }
static PyObject *py_fma64(PyObject *self, PyObject *args) { return fused(args, 8, fma64_loop); }

static PyObject *py_fma_add(PyObject *self, PyObject *args) {
    Py_buffer p, c, out;
    if (!PyArg_ParseTuple(args, "y*y*w*", &p, &c, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = count(&out, 4, -1), np_, nc;
    if (n >= 0 && (np_ = count(&p, 8, n)) >= 0 && (nc = count(&c, 4, n)) >= 0) {
        Py_BEGIN_ALLOW_THREADS
        fma_add_loop(p.buf, c.buf, out.buf, n, np_ == n, nc == n);
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&p);
    PyBuffer_Release(&c);
    PyBuffer_Release(&out);
    return result;
}

static PyObject *py_log256(PyObject *self, PyObject *args) { return unary32(args, log256_loop); }

static PyObject *py_sincos256(PyObject *self, PyObject *args) {
    return float32x3(args, "y*w*w*", sincos256_loop);
}

/* permute(out, picks, inside_out): randperm_cpu's two shuffles over int64 arrays of n
 * elements (generator.py draws the picks): Fisher-Yates swapping out[i] with out[picks[i]]
 * for i = 0 .. n - 2 (out holds 0 .. n - 1), or the inside-out shuffle out[i] = out[z],
 * out[z] = i for z = picks[i] */
static PyObject *py_permute(PyObject *self, PyObject *args) {
    Py_buffer out, picks;
    int inside_out;
    if (!PyArg_ParseTuple(args, "w*y*p", &out, &picks, &inside_out)) return NULL;
    Py_ssize_t n = out.len / 8, m = picks.len / 8;
    int64_t *o = out.buf;
    const int64_t *z = picks.buf;
    int ok = 1;
    for (Py_ssize_t i = 0; i < m && ok; i++) ok = z[i] >= 0 && z[i] < n;
    if (!ok || m > n) {
        PyErr_SetString(PyExc_ValueError, "permute: a pick out of range");
    } else if (inside_out) {
        for (Py_ssize_t i = 0; i < m; i++) {
            o[i] = o[z[i]];
            o[z[i]] = i;
        }
    } else {
        for (Py_ssize_t i = 0; i < m; i++) {
            int64_t t = o[i];
            o[i] = o[z[i]];
            o[z[i]] = t;
        }
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&picks);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* log_softmax(rows, out, n, lanes) and log_softmax_backward(grad, out, result, n, lanes):
 * C-contiguous float32 arrays of rows of n elements */
/* log_softmax(x, out, n, w) of rows of n items, w lanes; log_softmax_backward(g, out, y, n, w);
 * the float64 ones (log_softmax64 ...) alike */
#define PY_LOG_SOFTMAX(T, SFX)                                                                \
static PyObject *py_log_softmax##SFX(PyObject *self, PyObject *args) {                        \
    Py_buffer x, out;                                                                         \
    Py_ssize_t n;                                                                             \
    int w;                                                                                    \
    if (!PyArg_ParseTuple(args, "y*w*ni", &x, &out, &n, &w)) return NULL;                     \
    if (n < 1 || w < 1 || w > 64 || x.len != out.len || x.len % (sizeof(T) * n)) {           \
        PyErr_SetString(PyExc_ValueError, "log_softmax: bad sizes");                          \
    } else {                                                                                  \
        Py_BEGIN_ALLOW_THREADS                                                                \
        log_softmax##SFX##_loop(x.buf, out.buf, x.len / (sizeof(T) * n), n, w);               \
        Py_END_ALLOW_THREADS                                                                  \
    }                                                                                         \
    PyBuffer_Release(&x);                                                                     \
    PyBuffer_Release(&out);                                                                   \
    if (PyErr_Occurred()) return NULL;                                                        \
    Py_RETURN_NONE;                                                                           \
}                                                                                             \
static PyObject *py_log_softmax_backward##SFX(PyObject *self, PyObject *args) {               \
    Py_buffer g, out, y;                                                                      \
    Py_ssize_t n;                                                                             \
    int w;                                                                                    \
    if (!PyArg_ParseTuple(args, "y*w*y*ni", &g, &out, &y, &n, &w)) return NULL;              \
    if (n < 1 || w < 1 || w > 64 || g.len != out.len || y.len != out.len                     \
            || g.len % (sizeof(T) * n)) {                                                     \
        PyErr_SetString(PyExc_ValueError, "log_softmax_backward: bad sizes");                 \
    } else {                                                                                  \
        Py_BEGIN_ALLOW_THREADS                                                                \
        log_softmax_backward##SFX##_loop(g.buf, y.buf, out.buf, g.len / (sizeof(T) * n), n,  \
                                         w);                                                  \
        Py_END_ALLOW_THREADS                                                                  \
    }                                                                                         \
    PyBuffer_Release(&g);                                                                     \
    PyBuffer_Release(&out);                                                                   \
    PyBuffer_Release(&y);                                                                     \
    if (PyErr_Occurred()) return NULL;                                                        \
    Py_RETURN_NONE;                                                                           \
}
PY_LOG_SOFTMAX(float, )
PY_LOG_SOFTMAX(double, 64)

/* sum_kernel(x, out, n0, n1, s0, s1, width): reduce.py's _kernel of a 2-D float32 or float64
 * array (element strides, non-negative) into out (n1 elements of x's type) */
static PyObject *py_sum_kernel(PyObject *self, PyObject *args) {
    PyObject *xo;
    Py_buffer x, out;
    Py_ssize_t n0, n1, s0, s1;
    int width;
    if (!PyArg_ParseTuple(args, "Ow*nnnni", &xo, &out, &n0, &n1, &s0, &s1, &width)) return NULL;
    if (PyObject_GetBuffer(xo, &x, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    int dbl = x.itemsize == 8;
    if ((x.itemsize != 4 && x.itemsize != 8) || out.len != n1 * x.itemsize || n0 < 0 || n1 < 0
            || s0 < 0 || s1 < 0 || width < 1 || width > 64) {
        PyErr_SetString(PyExc_ValueError, "sum_kernel: bad arguments");
    } else {
        Py_BEGIN_ALLOW_THREADS
        if (dbl)
            f64_kernel(x.buf, n0, n1, s0, s1, width, out.buf);
        else
            f32_kernel(x.buf, n0, n1, s0, s1, width, out.buf);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* norm2_rows(rows, out, size, width, fused, dbl): norms.py's _lastdim_rows: for each C-contiguous
 * row of size float32 or float64 elements, the order-2 kernel's squared norm: width lanes of
 * acc + x * x (a multiply, then an add), the lanes added in order into the first, then the
 * scalar tail's squares added, by fused multiply-adds where ``fused`` (on float32 but for the
 * first four, which the compiler vectorised: products then in-order adds) */
#define NORM2_ROWS(T, FMA, SKIP)                                                              \
    for (Py_ssize_t r = 0; r < count; r++) {                                                  \
        const T *row = (const T *)rows.buf + r * size;                                        \
        T lanes[64] = {0};                                                                    \
        Py_ssize_t nvec = size / width, i = 0;                                                \
        for (Py_ssize_t v = 0; v < nvec; v++)                                                 \
            for (int l = 0; l < width; l++, i++) {                                            \
                T sq = row[i] * row[i];                                                       \
                lanes[l] = lanes[l] + sq;                                                     \
            }                                                                                 \
        T acc = lanes[0];                                                                     \
        for (int l = 1; l < width; l++) acc = acc + lanes[l];                                 \
        Py_ssize_t plain = fused ? (size - i >= 4 ? SKIP : 0) : size - i;                     \
        for (Py_ssize_t k = 0; k < plain; k++, i++) {                                         \
            T sq = row[i] * row[i];                                                           \
            acc = acc + sq;                                                                   \
        }                                                                                     \
        for (; i < size; i++) acc = FMA(row[i], row[i], acc);                                 \
        ((T *)out.buf)[r] = acc;                                                              \
    }
static PyObject *py_norm2_rows(PyObject *self, PyObject *args) {
    Py_buffer rows, out;
    Py_ssize_t size;
    int width, fused, dbl;
    if (!PyArg_ParseTuple(args, "y*w*nipp", &rows, &out, &size, &width, &fused, &dbl))
        return NULL;
    Py_ssize_t item = dbl ? 8 : 4;
    if (size < 1 || width < 1
            || width > 64 || rows.len % (item * size) || out.len != rows.len / size) {
        PyErr_SetString(PyExc_ValueError, "norm2_rows: bad arguments");
    } else {
        Py_ssize_t count = rows.len / (item * size);
        Py_BEGIN_ALLOW_THREADS
        if (item == 8) {
            NORM2_ROWS(double, fma, 0)
        } else {
            NORM2_ROWS(float, fmaf, 4)
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&rows);
    PyBuffer_Release(&out);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* welford(x, out, n0, n1, s0, s1): moments.py's _welford: for each of the n0 rows of the
 * 2-D float32 or float64 x (element strides s0, s1, non-negative) WelfordOps' running mean and
 * sum of squared distances over its n1 elements in float64, each step rounded on its own; the
 * sums into out (n0 doubles) */
#define WELFORD_LOOP(T)                                                                       \
    for (Py_ssize_t r = 0; r < n0; r++) {                                                     \
        const T *row = (const T *)x.buf + r * s0;                                             \
        double avg = 0.0, m2 = 0.0;                                                           \
        for (Py_ssize_t i = 0; i < n1; i++) {                                                 \
            double value = (double)row[i * s1];                                               \
            double delta = value - avg;                                                       \
            avg = avg + delta / (double)(i + 1);                                              \
            m2 = m2 + delta * (value - avg);                                                  \
        }                                                                                     \
        ((double *)out.buf)[r] = m2;                                                          \
    }
static PyObject *py_welford(PyObject *self, PyObject *args) {
    PyObject *xo;
    Py_buffer x, out;
    Py_ssize_t n0, n1, s0, s1;
    if (!PyArg_ParseTuple(args, "Ow*nnnn", &xo, &out, &n0, &n1, &s0, &s1)) return NULL;
    if (PyObject_GetBuffer(xo, &x, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    if ((x.itemsize != 4 && x.itemsize != 8) || out.len != n0 * 8 || n0 < 0 || n1 < 0
            || s0 < 0 || s1 < 0) {
        PyErr_SetString(PyExc_ValueError, "welford: bad arguments");
    } else {
        Py_BEGIN_ALLOW_THREADS
        if (x.itemsize == 8) {
            WELFORD_LOOP(double)
        } else {
            WELFORD_LOOP(float)
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* nll_cascade(terms, kept, out): the cascade of float32 or float64 terms (kept: one byte a row)
 * into the one-element out */
static PyObject *py_nll_cascade(PyObject *self, PyObject *args) {
    Py_buffer terms, kept, out;
    if (!PyArg_ParseTuple(args, "y*y*w*", &terms, &kept, &out)) return NULL;
    Py_ssize_t size = out.len, n = size ? terms.len / size : -1;
    if ((size != 4 && size != 8) || n < 0 || terms.len != n * size || kept.len != n) {
        PyErr_SetString(PyExc_ValueError, "nll_cascade: bad sizes");
    } else if (size == 4) {
        *(float *)out.buf = f32_nll_cascade(terms.buf, kept.buf, n);
    } else {
        *(double *)out.buf = f64_nll_cascade(terms.buf, kept.buf, n);
    }
    PyBuffer_Release(&terms);
    PyBuffer_Release(&kept);
    PyBuffer_Release(&out);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* nll_forward(x, target, ignore_index, out): nll_loss's reduced sum over (rows, classes) x
 * (float32 or float64, C-contiguous) without class weights: the term x[r, target[r]] of each
 * row whose target is kept (not ignore_index), in nll_cascade's order, into the one-element
 * out; returns False, writing nothing, where a kept target is not a class */
static PyObject *py_nll_forward(PyObject *self, PyObject *args) {
    Py_buffer x, t, out;
    long long ignore;
    if (!PyArg_ParseTuple(args, "y*y*Lw*", &x, &t, &ignore, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t size = out.len, rows = t.len / 8;
    if ((size != 4 && size != 8) || t.len % 8 || x.len % size ||
            (rows ? (x.len / size) % rows : x.len) != 0) {
        PyErr_SetString(PyExc_ValueError, "nll_forward: bad sizes");
        goto done;
    }
    Py_ssize_t classes = rows ? x.len / size / rows : 0;
    const int64_t *target = t.buf;
    char *terms = PyMem_Malloc(rows * size + 1);
    unsigned char *kept = PyMem_Malloc(rows + 1);
    if (terms == NULL || kept == NULL) {
        PyMem_Free(terms);
        PyMem_Free(kept);
        PyErr_NoMemory();
        goto done;
    }
    int classes_only = 1;
    for (Py_ssize_t r = 0; r < rows; r++) {
        int64_t k = target[r];
        kept[r] = k != ignore;
        if (!kept[r]) k = 0;  /* a term never added */
        else if (k < 0 || k >= classes) {
            classes_only = 0;
            break;
        }
        if (size == 8)
            ((double *)terms)[r] = kept[r] ? ((const double *)x.buf)[r * classes + k] : 0.0;
        else
            ((float *)terms)[r] = kept[r] ? ((const float *)x.buf)[r * classes + k] : 0.0f;
    }
    if (classes_only) {
        if (size == 8)
            *(double *)out.buf = f64_nll_cascade((const double *)terms, kept, rows);
        else
            *(float *)out.buf = f32_nll_cascade((const float *)terms, kept, rows);
    }
    PyMem_Free(terms);
    PyMem_Free(kept);
    result = PyBool_FromLong(classes_only);
done:
    PyBuffer_Release(&x);
    PyBuffer_Release(&t);
    PyBuffer_Release(&out);
    return result;
}

/* nll_targets(target, ignore_index, classes): (how many targets are kept, the row of the first
 * kept one that is not a class or -1), of int64 targets (nn_functional's _target_weights) */
static PyObject *py_nll_targets(PyObject *self, PyObject *args) {
    Py_buffer t;
    long long ignore;
    Py_ssize_t classes;
    if (!PyArg_ParseTuple(args, "y*Ln", &t, &ignore, &classes)) return NULL;
    const int64_t *target = t.buf;
    Py_ssize_t rows = t.len / 8, count = 0, bad = -1;
    for (Py_ssize_t r = 0; r < rows; r++) {
        if (target[r] == ignore) continue;
        count++;
        if (bad < 0 && (target[r] < 0 || target[r] >= classes)) bad = r;
    }
    PyBuffer_Release(&t);
    return Py_BuildValue("nn", count, bad);
}

/* fma64 of three Python floats: the scalar scripts' 0-d case without any buffer */
static PyObject *py_fma64_scalar(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "fma64_scalar takes three floats");
        return NULL;
    }
    double a = PyFloat_AsDouble(args[0]), b = PyFloat_AsDouble(args[1]),
           c = PyFloat_AsDouble(args[2]);
    if (PyErr_Occurred()) return NULL;
    return PyFloat_FromDouble(fused64(a, b, c));
}

/* ---- MKL's gemm and gemv, called as blas.py calls them through ctypes ----------------------
 * The function pointer comes from the library blas.py loaded (libmkl.py); the arrays' first
 * elements through the buffer protocol (any strides: blas.py has chosen the layout and the
 * leading dimensions); alpha 1 and beta 0 in the operands' type.  One C call instead of a
 * ctypes call converting fourteen arguments and three address lookups. */

typedef void (*sgemm_t)(int, int, int, int, int, int, float, const void *, int, const void *,
                        int, float, void *, int);
typedef void (*dgemm_t)(int, int, int, int, int, int, double, const void *, int, const void *,
                        int, double, void *, int);
typedef void (*sgemv_t)(int, int, int, int, float, const void *, int, const void *, int, float,
                        void *, int);
typedef void (*dgemv_t)(int, int, int, int, double, const void *, int, const void *, int,
                        double, void *, int);

/* ints[i] = args[first + i] as C ints; -1 with an exception set on failure */
static int ints(PyObject *const *args, Py_ssize_t first, int count, int *out) {
    for (int i = 0; i < count; i++) {
        long v = PyLong_AsLong(args[first + i]);
        if (v == -1 && PyErr_Occurred()) return -1;
        out[i] = (int)v;
    }
    return 0;
}

/* The buffers of two operands (any strides) and of a writable result: 0, or -1 with none held
 * and an exception set */
static int operands(PyObject *a, PyObject *b, PyObject *out, Py_buffer v[3]) {
    if (PyObject_GetBuffer(a, &v[0], PyBUF_STRIDES) < 0) return -1;
    if (PyObject_GetBuffer(b, &v[1], PyBUF_STRIDES) < 0) {
        PyBuffer_Release(&v[0]);
        return -1;
    }
    if (PyObject_GetBuffer(out, &v[2], PyBUF_STRIDES | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&v[0]);
        PyBuffer_Release(&v[1]);
        return -1;
    }
    return 0;
}

static void release(Py_buffer v[3]) {
    for (int i = 0; i < 3; i++) PyBuffer_Release(&v[i]);
}

/* gemm(fn, double, order, transa, transb, m, n, k, a, lda, b, ldb, c, ldc[, beta]):
 * c = op(a) op(b) + beta c (beta 0 by default: c only written) */
static PyObject *py_gemm(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 14 && nargs != 15) {
        PyErr_SetString(PyExc_TypeError, "gemm takes 14 or 15 arguments");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]);
    int dbl = PyObject_IsTrue(args[1]), v[6], lda, ldb, ldc;
    double beta = nargs == 15 ? PyFloat_AsDouble(args[14]) : 0.0;
    if ((fn == NULL && PyErr_Occurred()) || dbl < 0 || ints(args, 2, 6, v) < 0
            || ints(args, 9, 1, &lda) < 0 || ints(args, 11, 1, &ldb) < 0
            || ints(args, 13, 1, &ldc) < 0 || (beta == -1.0 && PyErr_Occurred()))
        return NULL;
    Py_buffer m[3];  /* a, b, c */
    if (operands(args[8], args[10], args[12], m) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (dbl)
        ((dgemm_t)fn)(v[0], v[1], v[2], v[3], v[4], v[5], 1.0, m[0].buf, lda, m[1].buf, ldb, beta,
                      m[2].buf, ldc);
    else
        ((sgemm_t)fn)(v[0], v[1], v[2], v[3], v[4], v[5], 1.0f, m[0].buf, lda, m[1].buf, ldb,
                      (float)beta, m[2].buf, ldc);
    Py_END_ALLOW_THREADS
    release(m);
    Py_RETURN_NONE;
}

/* gemm_batch(fn, double, transa, transb, m, n, k, a, lda, stride_a, b, ldb, stride_b, c, ldc,
 * stride_c, count): MKL's cblas_?gemm_batch at address fn, column-major (102), alpha 1, beta 0,
 * one group of count products, matrix i of each operand at its first element plus i times its
 * batch stride (in elements; 0 for an expanded batch) */
typedef void (*sgemm_batch_t)(int, const int *, const int *, const int *, const int *,
                              const int *, const float *, const void **, const int *,
                              const void **, const int *, const float *, void **, const int *,
                              int, const int *);
typedef void (*dgemm_batch_t)(int, const int *, const int *, const int *, const int *,
                              const int *, const double *, const void **, const int *,
                              const void **, const int *, const double *, void **, const int *,
                              int, const int *);
static PyObject *py_gemm_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 17) {
        PyErr_SetString(PyExc_TypeError, "gemm_batch takes 17 arguments");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]);
    int dbl = PyObject_IsTrue(args[1]), v[5], lda, ldb, ldc, count;
    Py_ssize_t sa = PyLong_AsSsize_t(args[9]), sb = PyLong_AsSsize_t(args[12]),
               sc = PyLong_AsSsize_t(args[15]);
    if ((fn == NULL && PyErr_Occurred()) || dbl < 0 || ints(args, 2, 5, v) < 0
            || ints(args, 8, 1, &lda) < 0 || ints(args, 11, 1, &ldb) < 0
            || ints(args, 14, 1, &ldc) < 0 || ints(args, 16, 1, &count) < 0 || PyErr_Occurred())
        return NULL;
    if (count < 1) {
        PyErr_SetString(PyExc_ValueError, "gemm_batch: no products");
        return NULL;
    }
    Py_buffer m[3];  /* a, b, c */
    if (operands(args[7], args[10], args[13], m) < 0) return NULL;
    void **ptrs = PyMem_Malloc(3 * (size_t)count * sizeof(void *));
    if (ptrs == NULL) {
        release(m);
        return PyErr_NoMemory();
    }
    Py_ssize_t item = dbl ? 8 : 4;
    for (int i = 0; i < count; i++) {
        ptrs[i] = (char *)m[0].buf + i * sa * item;
        ptrs[count + i] = (char *)m[1].buf + i * sb * item;
        ptrs[2 * count + i] = (char *)m[2].buf + i * sc * item;
    }
    Py_BEGIN_ALLOW_THREADS
    if (dbl) {
        const double one = 1.0, zero = 0.0;
        ((dgemm_batch_t)fn)(102, &v[0], &v[1], &v[2], &v[3], &v[4],
                            &one, (const void **)ptrs, &lda, (const void **)ptrs + count, &ldb,
                            &zero, ptrs + 2 * count, &ldc, 1, &count);
    } else {
        const float one = 1.0f, zero = 0.0f;
        ((sgemm_batch_t)fn)(102, &v[0], &v[1], &v[2], &v[3], &v[4],
                            &one, (const void **)ptrs, &lda, (const void **)ptrs + count, &ldb,
                            &zero, ptrs + 2 * count, &ldc, 1, &count);
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(ptrs);
    release(m);
    Py_RETURN_NONE;
}

/* gemv(fn, double, order, trans, m, n, a, lda, x, incx, y, incy): y = op(a) x */
static PyObject *py_gemv(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 12) {
        PyErr_SetString(PyExc_TypeError, "gemv takes 12 arguments");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]);
    int dbl = PyObject_IsTrue(args[1]), v[4], lda, incx, incy;
    if ((fn == NULL && PyErr_Occurred()) || dbl < 0 || ints(args, 2, 4, v) < 0
            || ints(args, 7, 1, &lda) < 0 || ints(args, 9, 1, &incx) < 0
            || ints(args, 11, 1, &incy) < 0)
        return NULL;
    Py_buffer m[3];  /* a, x, y */
    if (operands(args[6], args[8], args[10], m) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (dbl)
        ((dgemv_t)fn)(v[0], v[1], v[2], v[3], 1.0, m[0].buf, lda, m[1].buf, incx, 0.0, m[2].buf,
                      incy);
    else
        ((sgemv_t)fn)(v[0], v[1], v[2], v[3], 1.0f, m[0].buf, lda, m[1].buf, incx, 0.0f,
                      m[2].buf, incy);
    Py_END_ALLOW_THREADS
    release(m);
    Py_RETURN_NONE;
}

/* ---- MKL's VML: vmsTanh(n, a, r, mode) and the like, as vml.py calls them --------------- */

typedef void (*vmls_t)(int, const float *, float *, long long);
typedef void (*vmld_t)(int, const double *, double *, long long);

/* vml(fn, double, x, out, mode): the VML function at address fn over the contiguous x */
static PyObject *py_vml(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "vml takes 5 arguments");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]);
    int dbl = PyObject_IsTrue(args[1]);
    long long mode = PyLong_AsLongLong(args[4]);
    if ((fn == NULL && PyErr_Occurred()) || dbl < 0 || (mode == -1 && PyErr_Occurred()))
        return NULL;
    Py_buffer x, out;
    if (PyObject_GetBuffer(args[2], &x, PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(args[3], &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&x);
        return NULL;
    }
    Py_ssize_t size = dbl ? 8 : 4, n = x.len / size;
    if (out.len != x.len || n > 0x7FFFFFFF) {
        PyErr_SetString(PyExc_ValueError, "vml: sizes differ or exceed MKL_INT");
    } else if (n) {
        Py_BEGIN_ALLOW_THREADS
        if (dbl)
            ((vmld_t)fn)((int)n, x.buf, out.buf, mode);
        else
            ((vmls_t)fn)((int)n, x.buf, out.buf, mode);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&out);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* vml_scalar(fn, double, value, mode): the VML function of one value (a float32 one when not
 * double: exact both ways through a C double), as a Python float */
static PyObject *py_vml_scalar(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "vml_scalar takes 4 arguments");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]);
    int dbl = PyObject_IsTrue(args[1]);
    double v = PyFloat_AsDouble(args[2]);
    long long mode = PyLong_AsLongLong(args[3]);
    if (PyErr_Occurred() || dbl < 0) return NULL;
    if (dbl) {
        double r;
        ((vmld_t)fn)(1, &v, &r, mode);
        return PyFloat_FromDouble(r);
    }
    float a = (float)v, r;
    ((vmls_t)fn)(1, &a, &r, mode);
    return PyFloat_FromDouble((double)r);
}

/* ---- the C library's math functions over arrays (clib.py) --------------------------------
 * The function at the address clib.py looked up in the library ctypes loaded: the very
 * function its per-element ctypes calls reach, in one loop. */

typedef float (*f1_t)(float);
typedef double (*d1_t)(double);
typedef float (*f2_t)(float, float);
typedef double (*d2_t)(double, double);

/* map(fn, double, out, x[, y]): out[i] = fn(x[i][, y[i]]) over contiguous arrays of one size */
static PyObject *py_map(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 && nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "map takes 4 or 5 arguments");
        return NULL;
    }
    void *fn = PyLong_AsVoidPtr(args[0]);
    int dbl = PyObject_IsTrue(args[1]);
    if ((fn == NULL && PyErr_Occurred()) || dbl < 0) return NULL;
    Py_buffer out, x, y;
    int two = nargs == 5;
    if (PyObject_GetBuffer(args[2], &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[3], &x, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    if (two && PyObject_GetBuffer(args[4], &y, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&out);
        PyBuffer_Release(&x);
        return NULL;
    }
    Py_ssize_t size = dbl ? 8 : 4, n = out.len / size;
    if (x.len != out.len || (two && y.len != out.len)) {
        PyErr_SetString(PyExc_ValueError, "map: operand sizes differ");
    } else {
        Py_BEGIN_ALLOW_THREADS
        if (dbl) {
            const double *a = x.buf;
            double *r = out.buf;
            if (two) {
                const double *b = y.buf;
                for (Py_ssize_t i = 0; i < n; i++) r[i] = ((d2_t)fn)(a[i], b[i]);
            } else {
                for (Py_ssize_t i = 0; i < n; i++) r[i] = ((d1_t)fn)(a[i]);
            }
        } else {
            const float *a = x.buf;
            float *r = out.buf;
            if (two) {
                const float *b = y.buf;
                for (Py_ssize_t i = 0; i < n; i++) r[i] = ((f2_t)fn)(a[i], b[i]);
            } else {
                for (Py_ssize_t i = 0; i < n; i++) r[i] = ((f1_t)fn)(a[i]);
            }
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&x);
    if (two) PyBuffer_Release(&y);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* ---- layer_norm's loops (layernorm.py) ----------------------------------------------------
 * Arrays are C-contiguous buffers of float32 or float64 items (flags & 8: float64); None for a
 * missing weight, bias or (dbeta) input.  flags: 1 fused (madd), 2 lanes folded as a tree, 4 the
 * variance instead of rstd (row_moments).  Each buffer's length is checked. */

/* buffer i of objs: `items` items (rows or rows * size), writable for the output; None allowed
 * where optional (b->obj NULL) */
static int ln_buffer(PyObject *o, Py_buffer *b, Py_ssize_t items, Py_ssize_t item, int writable,
                     int optional) {
    b->obj = NULL;
    b->buf = NULL;
    if (o == Py_None && optional) return 0;
    if (PyObject_GetBuffer(o, b, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0) {
        b->obj = NULL;
        return -1;
    }
    if (b->len != items * item) {
        PyBuffer_Release(b);
        b->obj = NULL;
        PyErr_SetString(PyExc_ValueError, "layer_norm: a buffer's length differs from its shape");
        return -1;
    }
    return 0;
}

static void ln_release(Py_buffer *b, int n) {
    for (int i = 0; i < n; i++)
        if (b[i].obj) PyBuffer_Release(&b[i]);
}

/* the trailing integer arguments (rows, size[, chunk], flags) */
static int ln_ints(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t first, int count,
                   Py_ssize_t *out) {
    if (nargs != first + count) {
        PyErr_SetString(PyExc_TypeError, "layer_norm: wrong number of arguments");
        return -1;
    }
    for (int i = 0; i < count; i++) {
        out[i] = PyLong_AsSsize_t(args[first + i]);
        if (out[i] == -1 && PyErr_Occurred()) return -1;
        if (out[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "layer_norm: negative size");
            return -1;
        }
    }
    return 0;
}

/* layer_norm_stats(x, mean, out, eps, rows, size, flags) */
static PyObject *py_layer_norm_stats(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t v[3];
    if (ln_ints(args, nargs, 4, 3, v) < 0) return NULL;
    double eps = PyFloat_AsDouble(args[3]);
    if (eps == -1.0 && PyErr_Occurred()) return NULL;
    Py_ssize_t rows = v[0], size = v[1], item = v[2] & 8 ? 8 : 4;
    int fused = v[2] & 1, variance = (v[2] & 4) != 0;
    Py_buffer b[3];
    memset(b, 0, sizeof b);
    if (ln_buffer(args[0], &b[0], rows * size, item, 0, 0) < 0
            || ln_buffer(args[1], &b[1], rows, item, 1, 0) < 0
            || ln_buffer(args[2], &b[2], rows, item, 1, 0) < 0) {
        ln_release(b, 3);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    if (item == 8)
        ln_stats64_loop(b[0].buf, b[1].buf, b[2].buf, rows, size, eps, fused, variance);
    else
        ln_stats32_loop(b[0].buf, b[1].buf, b[2].buf, rows, size, (float)eps, fused, variance);
    Py_END_ALLOW_THREADS
    ln_release(b, 3);
    Py_RETURN_NONE;
}

/* layer_norm_forward(x, weight, bias, mean, rstd, out, rows, size, flags) */
static PyObject *py_layer_norm_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Py_ssize_t v[3];
    if (ln_ints(args, nargs, 6, 3, v) < 0) return NULL;
    Py_ssize_t rows = v[0], size = v[1], item = v[2] & 8 ? 8 : 4;
    Py_buffer b[6];
    memset(b, 0, sizeof b);
    if (ln_buffer(args[0], &b[0], rows * size, item, 0, 0) < 0
            || ln_buffer(args[1], &b[1], size, item, 0, 1) < 0
            || ln_buffer(args[2], &b[2], size, item, 0, 1) < 0
            || ln_buffer(args[3], &b[3], rows, item, 0, 0) < 0
            || ln_buffer(args[4], &b[4], rows, item, 0, 0) < 0
            || ln_buffer(args[5], &b[5], rows * size, item, 1, 0) < 0) {
        ln_release(b, 6);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    if (item == 8)
        ln_forward64_loop(b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, rows, size,
                          v[2] & 1);
    else
        ln_forward32_loop(b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, rows, size,
                          v[2] & 1);
    Py_END_ALLOW_THREADS
    ln_release(b, 6);
    Py_RETURN_NONE;
}

/* layer_norm_input_grad(dy, x, weight, mean, rstd, out, rows, size, flags) */
static PyObject *py_layer_norm_input_grad(PyObject *self, PyObject *const *args,
                                          Py_ssize_t nargs) {
    Py_ssize_t v[3];
    if (ln_ints(args, nargs, 6, 3, v) < 0) return NULL;
    Py_ssize_t rows = v[0], size = v[1], item = v[2] & 8 ? 8 : 4;
    int fused = v[2] & 1, tree = (v[2] & 2) != 0;
    Py_buffer b[6];
    memset(b, 0, sizeof b);
    if (ln_buffer(args[0], &b[0], rows * size, item, 0, 0) < 0
            || ln_buffer(args[1], &b[1], rows * size, item, 0, 0) < 0
            || ln_buffer(args[2], &b[2], size, item, 0, 1) < 0
            || ln_buffer(args[3], &b[3], rows, item, 0, 0) < 0
            || ln_buffer(args[4], &b[4], rows, item, 0, 0) < 0
            || ln_buffer(args[5], &b[5], rows * size, item, 1, 0) < 0) {
        ln_release(b, 6);
        return NULL;
    }
    if (size > 0) {
        Py_BEGIN_ALLOW_THREADS
        if (item == 8)
            ln_input_grad64_loop(b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, rows,
                                 size, fused, tree);
        else
            ln_input_grad32_loop(b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, rows,
                                 size, fused, tree);
        Py_END_ALLOW_THREADS
    }
    ln_release(b, 6);
    Py_RETURN_NONE;
}

/* layer_norm_param_grad(dy, x, mean, rstd, out, rows, size, chunk, flags): dgamma, or dbeta
 * where x (and mean, rstd) are None */
static PyObject *py_layer_norm_param_grad(PyObject *self, PyObject *const *args,
                                          Py_ssize_t nargs) {
    Py_ssize_t v[4];
    if (ln_ints(args, nargs, 5, 4, v) < 0) return NULL;
    Py_ssize_t rows = v[0], size = v[1], chunk = v[2] > 0 ? v[2] : 1, item = v[3] & 8 ? 8 : 4;
    int gamma = args[1] != Py_None;
    Py_buffer b[5];
    memset(b, 0, sizeof b);
    if (ln_buffer(args[0], &b[0], rows * size, item, 0, 0) < 0
            || ln_buffer(args[1], &b[1], rows * size, item, 0, 1) < 0
            || ln_buffer(args[2], &b[2], rows, item, 0, !gamma) < 0
            || ln_buffer(args[3], &b[3], rows, item, 0, !gamma) < 0
            || ln_buffer(args[4], &b[4], size, item, 1, 0) < 0) {
        ln_release(b, 5);
        return NULL;
    }
    void *buf = PyMem_RawMalloc(size ? size * item : 1);
    if (!buf) {
        ln_release(b, 5);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    if (item == 8)
        ln_param_grad64_loop(b[0].buf, gamma ? b[1].buf : NULL, b[2].buf, b[3].buf, b[4].buf, buf,
                             rows, size, chunk, v[3] & 1);
    else
        ln_param_grad32_loop(b[0].buf, gamma ? b[1].buf : NULL, b[2].buf, b[3].buf, b[4].buf, buf,
                             rows, size, chunk, v[3] & 1);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(buf);
    ln_release(b, 5);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"expf", py_expf, METH_VARARGS, "expf(x, out): SLEEF's xexpf of float32 x into out."},
    {"logf", py_logf, METH_VARARGS, "logf(x, out): SLEEF's xlogf_u1 of float32 x into out."},
    {"gelu_avx2", py_gelu_avx2, METH_VARARGS,
     "gelu_avx2(x, out): oneDNN's float32 gelu_erf forward below AVX-512 (onednn.py)."},
    {"gelu_avx512", py_gelu_avx512, METH_VARARGS,
     "gelu_avx512(x, out, pol): oneDNN's float32 minimax gelu_erf forward (onednn.py)."},
    {"gelu_backward", py_gelu_backward, METH_VARARGS,
     "gelu_backward(grad, x, out): oneDNN's float32 gelu_erf derivative times grad."},
    {"log1pf", py_log1pf, METH_VARARGS, "log1pf(x, out): SLEEF's xlog1pf of float32 x."},
    {"expm1f", py_expm1f, METH_VARARGS, "expm1f(x, out): SLEEF's xexpm1f of float32 x."},
    {"exp64", py_exp64, METH_VARARGS, "exp64(x, out): SLEEF's xexp of float64 x into out."},
    {"log64", py_log64, METH_VARARGS, "log64(x, out): SLEEF's xlog_u1 of float64 x into out."},
    {"log1p64", py_log1p64, METH_VARARGS, "log1p64(x, out): SLEEF's xlog1p of float64 x."},
    {"expm1_64", py_expm1_64, METH_VARARGS, "expm1_64(x, out): SLEEF's xexpm1 of float64 x."},
    {"erf64", py_erf64, METH_VARARGS, "erf64(x, out): SLEEF's xerf_u1 of float64 x."},
    {"fma32", py_fma32, METH_VARARGS, "fma32(a, b, c, out): float32 a * b + c rounded once."},
    {"fma_add", py_fma_add, METH_VARARGS,
     "fma_add(p, c, out): float64 p (an exact product) + float32 c, rounded once to float32."},
    {"fma64", py_fma64, METH_VARARGS, "fma64(a, b, c, out): float64 a * b + c rounded once."},
    {"poly64", py_poly64, METH_VARARGS,
     "poly64(powers, coeffs, out): SLEEF's POLYn of float64 powers, as sleef64._poly."},
    {"tanh_backward32", py_tanh_backward32, METH_VARARGS,
     "tanh_backward32(grad, y, out): float32 grad * (1 - y * y), the difference fused."},
    {"threshold_backward", py_threshold_backward, METH_VARARGS,
     "threshold_backward(grad, x, threshold, out): 0 where x <= threshold, else grad."},
    {"fma64_scalar", (PyCFunction)(void (*)(void))py_fma64_scalar, METH_FASTCALL,
     "fma64_scalar(a, b, c): a * b + c of Python floats, rounded once."},
    {"gemm_batch", (PyCFunction)(void (*)(void))py_gemm_batch, METH_FASTCALL,
     "gemm_batch(fn, double, transa, transb, m, n, k, a, lda, sa, b, ldb, sb, c, ldc, sc, "
     "count): MKL's batched gemm over strided matrices."},
    {"gemm", (PyCFunction)(void (*)(void))py_gemm, METH_FASTCALL,
     "gemm(fn, double, order, transa, transb, m, n, k, a, lda, b, ldb, c, ldc[, beta]): MKL's "
     "?gemm at address fn, alpha 1, beta 0 or the one given."},
    {"gemv", (PyCFunction)(void (*)(void))py_gemv, METH_FASTCALL,
     "gemv(fn, double, order, trans, m, n, a, lda, x, incx, y, incy): MKL's ?gemv at address "
     "fn, alpha 1, beta 0."},
    {"vml", (PyCFunction)(void (*)(void))py_vml, METH_FASTCALL,
     "vml(fn, double, x, out, mode): MKL's VML function at address fn over contiguous x."},
    {"vml_scalar", (PyCFunction)(void (*)(void))py_vml_scalar, METH_FASTCALL,
     "vml_scalar(fn, double, value, mode): MKL's VML function at address fn of one value."},
    {"map", (PyCFunction)(void (*)(void))py_map, METH_FASTCALL,
     "map(fn, double, out, x[, y]): the C function at address fn over contiguous arrays."},
    {"log256", py_log256, METH_VARARGS, "log256(x, out): avx_mathfun's log256_ps of float32 x."},
    {"sincos256", py_sincos256, METH_VARARGS,
     "sincos256(x, sin, cos): avx_mathfun's sincos256_ps of float32 x."},
    {"permute", py_permute, METH_VARARGS,
     "permute(out, picks, inside_out): randperm's Fisher-Yates or inside-out shuffle."},
    {"log_softmax", py_log_softmax, METH_VARARGS,
     "log_softmax(rows, out, n, lanes): float32 rows' log_softmax (AVX2/AVX512 kernel)."},
    {"log_softmax_backward", py_log_softmax_backward, METH_VARARGS,
     "log_softmax_backward(grad, out, result, n, lanes): its backward, fused."},
    {"log_softmax64", py_log_softmax64, METH_VARARGS,
     "log_softmax64(rows, out, n, lanes): float64 rows' log_softmax (AVX2/AVX512 kernel)."},
    {"log_softmax_backward64", py_log_softmax_backward64, METH_VARARGS,
     "log_softmax_backward64(grad, out, result, n, lanes): its backward, fused."},
    {"norm2_rows", py_norm2_rows, METH_VARARGS,
     "norm2_rows(rows, out, size, width, fused, dbl): the order-2 norm's squared rows (norms.py)."},
    {"welford", py_welford, METH_VARARGS,
     "welford(x, out, n0, n1, s0, s1): WelfordOps' sums of squared distances (moments.py)."},
    {"sum_kernel", py_sum_kernel, METH_VARARGS,
     "sum_kernel(x, out, n0, n1, s0, s1, width): cascade_sum's 2-D loop (reduce.py _kernel)."},
    {"scatter_add", py_scatter_add, METH_VARARGS,
     "scatter_add(out, positions, values, dbl): out[positions[i]] += values[i], in order."},
    {"nll_scatter", py_nll_scatter, METH_VARARGS,
     "nll_scatter(target, out, value, ignore_index): value at each row's target class."},
    {"nll_forward", py_nll_forward, METH_VARARGS,
     "nll_forward(x, target, ignore_index, out): nll_loss's reduced sum without weights."},
    {"nll_targets", py_nll_targets, METH_VARARGS,
     "nll_targets(target, ignore_index, classes): (kept count, first bad row or -1)."},
    {"nll_cascade", py_nll_cascade, METH_VARARGS,
     "nll_cascade(terms, kept, out): nll_loss's eight-level sum of the kept terms."},
    {"layer_norm_stats", (PyCFunction)(void (*)(void))py_layer_norm_stats, METH_FASTCALL,
     "layer_norm_stats(x, mean, out, eps, rows, size, flags): RowwiseMoments' mean and rstd (or "
     "variance)."},
    {"layer_norm_forward", (PyCFunction)(void (*)(void))py_layer_norm_forward, METH_FASTCALL,
     "layer_norm_forward(x, weight, bias, mean, rstd, out, rows, size, flags): the output."},
    {"layer_norm_input_grad", (PyCFunction)(void (*)(void))py_layer_norm_input_grad,
     METH_FASTCALL,
     "layer_norm_input_grad(dy, x, weight, mean, rstd, out, rows, size, flags): dX."},
    {"layer_norm_param_grad", (PyCFunction)(void (*)(void))py_layer_norm_param_grad,
     METH_FASTCALL,
     "layer_norm_param_grad(dy, x, mean, rstd, out, rows, size, chunk, flags): dgamma (dbeta "
     "where x is None), one buffer per chunk of rows."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native",
    "gradcli's exact float kernels, compiled (see gradcli.engine.exact.native).", -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
