/* mstorch's native random kernels: the hot loops of mstorch/_random/ in plain C over raw buffers, loaded
 * with ctypes (mstorch/_random/native.py). Every function computes exactly what the NumPy code next to it
 * computes, operation by operation, so both paths give the same bits; the NumPy code is the fallback when
 * this library is not built and the reference its comments explain.
 *
 * Draws: the generator is NumPy's MT19937. Its state struct (624 words and a position) is advanced here
 * directly, with the standard MT19937 recurrence in a form the compiler vectorises; native.py checks at
 * load time that this reproduces NumPy's own next_uint32 and otherwise passes mt == NULL, and then every
 * draw goes through NumPy's bitgen_t function pointers.
 *
 * Build flags (setup.py): -O3 (vectorisation; no fast-math, so every IEEE operation stays as written),
 * -ffp-contract=off (no fused multiply-add where the source does not ask for one: the kernels round
 * exactly where the NumPy code rounds) and -fno-math-errno (lets sqrtf vectorise; no result changes).
 * On x86-64 Linux with GCC the hot loops are also compiled for AVX2 and picked at load time.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif
#define INLINE static inline __attribute__((always_inline))

typedef struct {                    /* NumPy's bitgen_t */
    void *state;
    uint64_t (*next_uint64)(void *);
    uint32_t (*next_uint32)(void *);
    double (*next_double)(void *);
    uint64_t (*next_raw)(void *);
} bitgen_t;

#define MT_N 624
#define MT_M 397
typedef struct { uint32_t key[MT_N]; int pos; } mt_state;    /* NumPy's mt19937_state */

#define CHUNK 2048                  /* draws per pass: the temporaries stay in L1 */

/* --- MT19937 ------------------------------------------------------------------------------------ */

INLINE uint32_t mt_mix(uint32_t a, uint32_t b, uint32_t far) {
    uint32_t y = (a & 0x80000000u) | (b & 0x7fffffffu);
    return far ^ (y >> 1) ^ ((0u - (y & 1u)) & 0x9908b0dfu);
}

HOT static void mt_regen(uint32_t *k) {
    int i;
    for (i = 0; i < MT_N - MT_M; i++)
        k[i] = mt_mix(k[i], k[i + 1], k[i + MT_M]);
    for (; i < MT_N - 1; i++)       /* k[i - 227] was renewed 227 steps ago: vectors of 8 are safe */
        k[i] = mt_mix(k[i], k[i + 1], k[i + MT_M - MT_N]);
    k[MT_N - 1] = mt_mix(k[MT_N - 1], k[0], k[MT_M - 1]);
}

HOT static void mt_temper(const uint32_t *k, uint32_t *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t y = k[i];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        out[i] = y ^ (y >> 18);
    }
}

/* n outputs of next_uint32 */
static void draw32(void *mt, void *bg, uint32_t *out, int64_t n) {
    if (mt) {
        mt_state *st = (mt_state *)mt;
        while (n > 0) {
            if (st->pos >= MT_N) {
                mt_regen(st->key);
                st->pos = 0;
            }
            int64_t c = MT_N - st->pos;
            if (c > n) c = n;
            mt_temper(st->key + st->pos, out, c);
            st->pos += (int)c;
            out += c;
            n -= c;
        }
    } else {
        bitgen_t *g = (bitgen_t *)bg;
        for (int64_t i = 0; i < n; i++) out[i] = g->next_uint32(g->state);
    }
}

/* n outputs of next_uint64 (two 32-bit draws, the first as the high word) */
static void draw64(void *mt, void *bg, uint64_t *out, int64_t n) {
    if (mt) {
        uint32_t buf[CHUNK];
        for (int64_t s = 0; s < n; s += CHUNK / 2) {
            int64_t c = n - s < CHUNK / 2 ? n - s : CHUNK / 2;
            draw32(mt, bg, buf, 2 * c);
            for (int64_t i = 0; i < c; i++) out[s + i] = (uint64_t)buf[2 * i] << 32 | buf[2 * i + 1];
        }
    } else {
        bitgen_t *g = (bitgen_t *)bg;
        for (int64_t i = 0; i < n; i++) out[i] = g->next_uint64(g->state);
    }
}

void ms_bits32(void *mt, void *bg, uint32_t *out, int64_t n, uint32_t mask) {
    draw32(mt, bg, out, n);
    if (mask != 0xffffffffu)
        for (int64_t i = 0; i < n; i++) out[i] &= mask;
}

void ms_bits64(void *mt, void *bg, uint64_t *out, int64_t n, uint64_t mask) {
    draw64(mt, bg, out, n);
    if (mask != ~(uint64_t)0)
        for (int64_t i = 0; i < n; i++) out[i] &= mask;
}

/* --- float32 -> float16 / bfloat16, rounding to nearest even (exact.py: f32_to_f16, bf16_round) --- */

INLINE uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
INLINE float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

INLINE uint16_t half_bits(uint32_t b) {          /* branch-free, so that it vectorises */
    uint32_t sign = (b >> 16) & 0x8000u, a = b & 0x7fffffffu;
    uint32_t hn = (a - 0x38000000u) >> 13, rn = a & 0x1fffu;        /* normal: rebias, round the 13 bits */
    hn += (rn > 0x1000u) | ((rn == 0x1000u) & hn);                  /* (a carry reaches inf correctly) */
    uint32_t shift = 126u - (a >> 23);                               /* subnormal: sig * 2**-shift */
    shift = shift > 25u ? 25u : shift < 14u ? 14u : shift;           /* 25: below 2**-25, gives 0 */
    uint32_t sig = (a & 0x7fffffu) | 0x800000u, half = 1u << (shift - 1u);
    uint32_t hs = sig >> shift, rs = sig & ((half << 1) - 1u);
    hs += (rs > half) | ((rs == half) & hs);
    uint32_t pay = (a >> 13) & 0x3ffu;                               /* NaN: NumPy keeps the top payload */
    uint32_t h = a > 0x7f800000u ? 0x7c00u | pay | (pay == 0) : a >= 0x477ff000u ? 0x7c00u
               : a >= 0x38800000u ? hn : hs;
    return (uint16_t)(sign | h);
}

INLINE float bf16_value(float x) {
    uint32_t b = f2u(x);
    if ((b & 0x7fffffffu) > 0x7f800000u) return u2f(0x7fc00000u);    /* NaN -> np.nan */
    return u2f((b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u);
}

HOT void ms_to_f16(const float *in, uint16_t *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = half_bits(f2u(in[i]));
}

HOT void ms_to_bf16(const float *in, float *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = bf16_value(in[i]);
}

/* kind: 0 float32, 1 float16 (bits), 2 bfloat16 (as float32 values) */
static void store(int kind, void *out, int64_t at, const float *v, int64_t n) {
    if (kind == 0) memcpy((float *)out + at, v, (size_t)n * sizeof(float));
    else if (kind == 1) ms_to_f16(v, (uint16_t *)out + at, n);
    else ms_to_bf16(v, (float *)out + at, n);
}

/* --- uniform (kernels.py: _uniform_fill, _clamp) -------------------------------------------------- */

/* mode 0: (float)(k + q) * a; mode 1: (float)(k * a + b) in double; mode 2: k * 2**-24 * a + b in float.
 * Values equal to `to` (after the cast to the output type) become `frm` when clamp is set. */
HOT static void uniform24_pass(const uint32_t *k, float *v, int64_t c, int mode, int32_t q, double a,
                               double b) {
    if (mode == 0) {
        float s = (float)a;
        for (int64_t i = 0; i < c; i++) v[i] = (float)((int32_t)(k[i] & 0xffffffu) + q) * s;
    } else if (mode == 1) {
        for (int64_t i = 0; i < c; i++) v[i] = (float)((double)(k[i] & 0xffffffu) * a + b);
    } else {
        float r = (float)a, lo = (float)b;
        for (int64_t i = 0; i < c; i++) {
            float u = (float)(int32_t)(k[i] & 0xffffffu) * 5.9604644775390625e-08f;
            u = u * r;
            v[i] = u + lo;
        }
    }
}

void ms_uniform_f32(void *mt, void *bg, int64_t n, int mode, int32_t q, double a, double b, int kind,
                    void *out, int clamp, double to, double frm) {
    uint32_t k[CHUNK];
    float v[CHUNK];
    for (int64_t s = 0; s < n; s += CHUNK) {
        int64_t c = n - s < CHUNK ? n - s : CHUNK;
        draw32(mt, bg, k, c);
        uniform24_pass(k, v, c, mode, q, a, b);
        store(kind, out, s, v, c);
    }
    if (!clamp) return;
    if (kind == 1) {
        uint16_t t = half_bits(f2u((float)to)), f = half_bits(f2u((float)frm)), *h = (uint16_t *)out;
        uint16_t mask = (t & 0x7fffu) == 0 ? 0x7fffu : 0xffffu;    /* to == 0 matches both zeros */
        for (int64_t i = 0; i < n; i++)
            if ((h[i] & mask) == (t & mask)) h[i] = f;
    } else {
        float t = (float)to, f = (float)frm, *x = (float *)out;
        for (int64_t i = 0; i < n; i++)
            if (x[i] == t) x[i] = f;
    }
}

/* mode 0: (double)(k + q) * a; mode 1: fma(u, a, b); mode 2: u * a + b, for u = k * 2**-53 */
void ms_uniform_f64(void *mt, void *bg, int64_t n, int mode, int64_t q, double a, double b, double *out,
                    int clamp, double to, double frm) {
    const uint64_t m53 = ((uint64_t)1 << 53) - 1;
    uint64_t k[CHUNK / 2];
    for (int64_t s = 0; s < n; s += CHUNK / 2) {
        int64_t c = n - s < CHUNK / 2 ? n - s : CHUNK / 2;
        double *o = out + s;
        draw64(mt, bg, k, c);
        for (int64_t i = 0; i < c; i++) {
            int64_t v = (int64_t)(k[i] & m53);
            double u = (double)v * 0x1p-53;
            o[i] = mode == 0 ? (double)(v + q) * a : mode == 1 ? fma(u, a, b) : u * a + b;
        }
    }
    if (clamp)
        for (int64_t i = 0; i < n; i++)
            if (out[i] == to) out[i] = frm;
}

/* --- integers (kernels.py: random_from_to; perm.py) ------------------------------------------------ */

/* (draw % range) + base with wrap-around; 64-bit draws when wide. kind: 0 int64 out, 1 int32 out */
void ms_randint(void *mt, void *bg, void *out, int64_t n, uint64_t range, int64_t base, int wide,
                int kind) {
    uint64_t buf[CHUNK / 2];
    uint32_t b32[CHUNK / 2];
#if defined(__SIZEOF_INT128__)
    uint64_t magic = ~(uint64_t)0 / range + 1;    /* Lemire's exact remainder for 32-bit dividends */
#endif
    for (int64_t s = 0; s < n; s += CHUNK / 2) {
        int64_t c = n - s < CHUNK / 2 ? n - s : CHUNK / 2;
        uint64_t r;
        if (wide) draw64(mt, bg, buf, c);
        else draw32(mt, bg, b32, c);
        for (int64_t i = 0; i < c; i++) {
            if (wide) {
                r = buf[i] % range;
            } else {
#if defined(__SIZEOF_INT128__)
                r = (uint64_t)(((unsigned __int128)(magic * b32[i]) * range) >> 64);
#else
                r = b32[i] % range;
#endif
            }
            uint64_t v = r + (uint64_t)base;
            if (kind == 0) ((int64_t *)out)[s + i] = (int64_t)v;
            else ((int32_t *)out)[s + i] = (int32_t)(uint32_t)v;
        }
    }
}

/* multinomial with replacement (kernels.py): per row, np.searchsorted(cum, u, side="left"), i.e. how many
 * cumulative probabilities lie below each uniform (rows of cum are non-decreasing) */
void ms_searchsorted(const double *cum, int64_t rows, int64_t ncat, const double *u, int64_t nsamp,
                     int64_t *out) {
    for (int64_t r = 0; r < rows; r++) {
        const double *a = cum + r * ncat;
        for (int64_t s = 0; s < nsamp; s++) {
            double v = u[r * nsamp + s];
            const double *b = a;
            int64_t len = ncat;
            while (len > 1) {          /* branch-free lower bound */
                int64_t half = len / 2;
                b = b[half] < v ? b + half : b;
                len -= half;
            }
            out[r * nsamp + s] = (b - a) + (*b < v);
        }
    }
}

/* randperm_cpu: Fisher-Yates, position i swapped with i + random() % (n - i), for i < n - 1 */
void ms_randperm(void *mt, void *bg, int64_t *out, int64_t n) {
    uint32_t r[CHUNK];
    for (int64_t i = 0; i < n; i++) out[i] = i;
    for (int64_t s = 0; s < n - 1; s += CHUNK) {
        int64_t c = n - 1 - s < CHUNK ? n - 1 - s : CHUNK;
        draw32(mt, bg, r, c);
        for (int64_t t = 0; t < c; t++) {
            int64_t i = s + t, j = i + (int64_t)(r[t] % (uint32_t)(n - i));
            int64_t x = out[i];
            out[i] = out[j];
            out[j] = x;
        }
    }
}

/* --- float32 Box-Muller over blocks of 16 (boxmuller.py) ------------------------------------------- */
/* The AVX2 kernel's arithmetic as boxmuller.py emulates it: each of its fused multiply-adds is a double
 * product (exact) plus a double sum, rounded to float, exactly as the NumPy code (FMA with hw == 0).
 * radius() and sincos() are functions of one 24-bit integer, and over all 2**24 of them a hardware FMA
 * (hw == 1, a single rounding) gives the same bits as that emulation: ms_bm_check() verifies it (the
 * tests run it), and the AVX2+FMA build uses the hardware instruction, twice as fast. */

#define F(x) ((float)(x))           /* a constant as np.float32(x): decimal -> double -> float */
#define EMU(a, b, c) ((float)((double)(a) * (double)(b) + (double)(c)))
#define FMA(a, b, c) (hw ? __builtin_fmaf((a), (b), (c)) : EMU(a, b, c))

INLINE float bm_radius(uint32_t k1, int hw) {          /* _radius */
    float v = 16777216.0f - (float)(int32_t)k1;
    int32_t b = (int32_t)f2u(v), mant = b & 0x7fffff;
    int32_t small = -(int32_t)(mant < 0x3504f3);
    b = (b >> 23) + small;
    float e = (float)b + -150.0f;
    mant |= 0x3f000000;
    float x = u2f((uint32_t)mant) - 1.0f;
    x = x + u2f((uint32_t)(mant & small));
    float z = x * x;
    float y = FMA(x, F(7.0376836292E-2), F(-1.1514610310E-1));
    y = FMA(y, x, F(1.1676998740E-1));
    y = FMA(y, x, F(-1.2420140846E-1));
    y = FMA(y, x, F(1.4249322787E-1));
    y = FMA(y, x, F(-1.6668057665E-1));
    y = FMA(y, x, F(2.0000714765E-1));
    y = FMA(y, x, F(-2.4999993993E-1));
    y = FMA(y, x, F(3.3333331174E-1));
    y = y * x;
    float eq = e * F(-2.12194440e-4);
    y = FMA(y, z, eq);
    z = z * 0.5f;
    y = y - z;
    x = x + y;
    x = x + e * 0.693359375f;
    x = x * -2.0f;
    return sqrtf(x);
}

INLINE void bm_sincos(uint32_t k2, float *sp, float *cp, int hw) {     /* _sincos */
    float theta = (float)(int32_t)k2 * (F(2.0 * 3.141592653589793) * 5.9604644775390625e-08f);
    int32_t j = (int32_t)(theta * F(1.27323954473516));
    j = (j + 1) & ~1;
    float y = (float)j;
    float x = y * F(-0.78515625);
    x = x + theta;
    x = x + y * F(-2.4187564849853515625e-4);
    x = FMA(y, F(-3.77489497744594108e-8), x);
    float z = x * x;
    float c = FMA(z, F(2.443315711809948E-005), F(-1.388731625493765E-003));
    c = FMA(c, z, F(4.166664568298827E-002));
    c = c * z;
    float h = z * 0.5f;
    c = FMA(c, z, -h);
    c = c + 1.0f;
    float s = FMA(z, F(-1.9515295891E-4), F(8.3321608736E-3));
    s = FMA(s, z, F(-1.6666654611E-1));
    s = s * z;
    s = FMA(s, x, x);
    uint32_t si = f2u(s), ci = f2u(c);
    uint32_t d = (si ^ ci) & (0u - ((uint32_t)j >> 1 & 1u));    /* octants 2, 6: sine and cosine trade */
    si ^= d;
    ci ^= d;
    si ^= ((uint32_t)j & 4u) << 29;
    ci ^= ((uint32_t)~(j - 2) & 4u) << 29;
    *sp = u2f(si);
    *cp = u2f(ci);
}

/* m = 8 * blocks of 24-bit keys: ka the first 8 of each block, kb the last 8 */
INLINE void bm_pass(const uint32_t *ka, const uint32_t *kb, float *r, float *s, float *c, int64_t m, int hw) {
    for (int64_t i = 0; i < m; i++) r[i] = bm_radius(ka[i], hw);
    for (int64_t i = 0; i < m; i++) bm_sincos(kb[i], s + i, c + i, hw);
}

HOT static void bm_pass_emu(const uint32_t *ka, const uint32_t *kb, float *r, float *s, float *c, int64_t m) {
    bm_pass(ka, kb, r, s, c, m, 0);
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
__attribute__((target("avx2,fma"))) static void bm_pass_fma(const uint32_t *ka, const uint32_t *kb, float *r,
                                                            float *s, float *c, int64_t m) {
    bm_pass(ka, kb, r, s, c, m, 1);
}

static int have_fma(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
#define bm_pass_fma bm_pass_emu
static int have_fma(void) { return 0; }
#endif

static void bm_avx2_pass(const uint32_t *ka, const uint32_t *kb, float *r, float *s, float *c, int64_t m) {
    static int fast = -1;
    if (fast < 0) fast = have_fma();
    if (fast) bm_pass_fma(ka, kb, r, s, c, m);
    else bm_pass_emu(ka, kb, r, s, c, m);
}

/* How many stretches of 24-bit inputs the hardware-FMA and the emulated radius/sine/cosine disagree on,
 * over all 2**24 inputs; -1 where there is no hardware path. */
int64_t ms_bm_check(void) {
    if (!have_fma()) return -1;
    uint32_t k[CHUNK];
    float a[3][CHUNK], b[3][CHUNK];
    int64_t bad = 0;
    for (uint32_t s = 0; s < (1u << 24); s += CHUNK) {
        for (int i = 0; i < CHUNK; i++) k[i] = s + (uint32_t)i;
        bm_pass_emu(k, k, a[0], a[1], a[2], CHUNK);
        bm_pass_fma(k, k, b[0], b[1], b[2], CHUNK);
        bad += memcmp(a, b, sizeof a) != 0;
    }
    return bad;
}

static void bm_scalar_pass(const uint32_t *ka, const uint32_t *kb, float *r, float *s, float *c, int64_t m) {
    for (int64_t i = 0; i < m; i++) {          /* _normal_fill16_scalar, before the multiply-add */
        double u1 = (double)(16777216 - ka[i]) * 0x1p-24;
        double theta = (double)(float)(2.0 * 3.141592653589793 * ((double)kb[i] * 0x1p-24));
        r[i] = sqrtf(-2.0f * (float)log(u1));
        c[i] = (float)cos(theta);
        s[i] = (float)sin(theta);
    }
}

/* variant 0: the AVX2 kernel (avx_mathfun), 1: the scalar kernel (libm). kind as in store(). */
HOT static void bm_combine(const float *r, const float *s, const float *c, float *v, int64_t nb, int variant,
                           float mean, float std) {
    if (variant == 0 && std == 1.0f && mean == 0.0f) {       /* fma(x, 1, 0): only -0 changes */
        for (int64_t b = 0; b < nb; b++)
            for (int l = 0; l < 8; l++) {
                v[16 * b + l] = r[8 * b + l] * c[8 * b + l] + 0.0f;
                v[16 * b + 8 + l] = r[8 * b + l] * s[8 * b + l] + 0.0f;
            }
        return;
    }
    for (int64_t b = 0; b < nb; b++)
        for (int l = 0; l < 8; l++) {
            v[16 * b + l] = EMU(c[8 * b + l] * r[8 * b + l], std, mean);
            v[16 * b + 8 + l] = EMU(s[8 * b + l] * r[8 * b + l], std, mean);
        }
}

void ms_normal_f32(void *mt, void *bg, void *out, int64_t at, int64_t nblocks, int variant, double mean,
                   double std, int kind) {
    uint32_t k[CHUNK], ka[CHUNK / 2], kb[CHUNK / 2];
    float r[CHUNK / 2], s[CHUNK / 2], c[CHUNK / 2], v[CHUNK];
    for (int64_t b0 = 0; b0 < nblocks; b0 += CHUNK / 16) {
        int64_t nb = nblocks - b0 < CHUNK / 16 ? nblocks - b0 : CHUNK / 16;
        draw32(mt, bg, k, 16 * nb);
        for (int64_t b = 0; b < nb; b++)
            for (int l = 0; l < 8; l++) {
                ka[8 * b + l] = k[16 * b + l] & 0xffffffu;
                kb[8 * b + l] = k[16 * b + 8 + l] & 0xffffffu;
            }
        if (variant == 0) bm_avx2_pass(ka, kb, r, s, c, 8 * nb);
        else bm_scalar_pass(ka, kb, r, s, c, 8 * nb);
        bm_combine(r, s, c, v, nb, variant, (float)mean, (float)std);
        store(kind, out, at + 16 * b0, v, 16 * nb);
    }
}

/* --- float64 Box-Muller over blocks of 16 (boxmuller.py: _normal_fill16_f64) ---------------------- */

void ms_normal_f64(void *mt, void *bg, double *out, int64_t nblocks, double mean, double std) {
    const uint64_t m53 = ((uint64_t)1 << 53) - 1;
    int plain = std == 1.0 && mean == 0.0;
    uint64_t k[16];
    for (int64_t b = 0; b < nblocks; b++) {
        double *o = out + 16 * b;
        draw64(mt, bg, k, 16);
        for (int l = 0; l < 8; l++) {
            double u1 = (double)(int64_t)(k[l] & m53) * 0x1p-53;
            double u2 = (double)(int64_t)(k[8 + l] & m53) * 0x1p-53;
            double radius = sqrt(-2.0 * log(1.0 - u1)), theta = u2 * (2.0 * 3.141592653589793);
            double vc = radius * cos(theta), vs = radius * sin(theta);
            o[l] = plain ? vc + 0.0 : fma(vc, std, mean);
            o[8 + l] = plain ? vs + 0.0 : fma(vs, std, mean);
        }
    }
}

/* --- half-precision dropout: out = round(float(x) * (keep ? s : 0)) (nn_dropout.py: _scale_numpy) ---
 * torch's float16/bfloat16 mul widens both operands to float32, multiplies and rounds once. The product
 * of a half value and the two-valued noise is exact in float32 (bfloat16 subnormals aside, which round
 * there as in torch). NaN results: float16 keeps the quiet payload (F16C and torch's scalar conversion
 * agree); bfloat16 is 0xffff in ATen's vectorised loop and 0x7fc0 in its scalar remainder, so the caller
 * passes ATen's split: chunks of `chunk` elements, each vectorised over whole blocks of `block` (0: none). */

INLINE float f16_value(uint16_t h) {             /* exact, payload kept; branch-free */
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, em = h & 0x7fffu;
    uint32_t normal = (em << 13) + 0x38000000u;                        /* rebias 15 -> 127 */
    uint32_t special = (em << 13) | 0x7f800000u;                       /* inf, NaN */
    float sub = u2f(0x3f000000u + em) - 0.5f;                          /* zero, subnormal: em * 2**-24 */
    uint32_t sp = 0u - (uint32_t)(em >= 0x7c00u), nm = 0u - (uint32_t)(em >= 0x0400u);   /* masks */
    return u2f(sign | (special & sp) | (normal & nm & ~sp) | (f2u(sub) & ~nm));
}

HOT static void scale_f16_soft(const uint16_t *x, const uint8_t *keep, float s, uint16_t *out, int64_t n) {
    for (int64_t i = 0; i < n; i++) out[i] = half_bits(f2u(f16_value(x[i]) * (keep[i] ? s : 0.0f)));
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#include <immintrin.h>
/* F16C converts as f16_value and half_bits do (the product's NaNs are quiet, so both keep the payload) */
__attribute__((target("avx2,f16c"))) static int64_t scale_f16_f16c(const uint16_t *x, const uint8_t *keep,
                                                                   float s, uint16_t *out, int64_t n) {
    const __m256 vs = _mm256_set1_ps(s);
    const __m256i zero = _mm256_setzero_si256();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i)));
        __m256i k = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(keep + i)));
        __m256 noise = _mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(k, zero)), vs);
        _mm_storeu_si128((__m128i *)(out + i), _mm256_cvtps_ph(_mm256_mul_ps(v, noise), _MM_FROUND_TO_NEAREST_INT));
    }
    return i;
}

static int have_f16c(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
}
#else
#define scale_f16_f16c(x, keep, s, out, n) ((int64_t)0)
static int have_f16c(void) { return 0; }
#endif

void ms_scale_f16(const uint16_t *x, const uint8_t *keep, float s, uint16_t *out, int64_t n) {
    static int fast = -1;
    if (fast < 0) fast = have_f16c();
    int64_t done = fast ? scale_f16_f16c(x, keep, s, out, n) : 0;
    scale_f16_soft(x + done, keep + done, s, out + done, n - done);
}

INLINE uint16_t bf16_mul(uint16_t x, uint8_t k, float s, uint32_t nan) {
    uint32_t b = f2u(u2f((uint32_t)x << 16) * (k ? s : 0.0f));
    uint32_t r = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
    return (uint16_t)((b & 0x7fffffffu) > 0x7f800000u ? nan : r);
}

HOT static void bf16_run(const uint16_t *x, const uint8_t *keep, float s, uint16_t *out, int64_t n,
                         uint32_t nan) {
    for (int64_t i = 0; i < n; i++) out[i] = bf16_mul(x[i], keep[i], s, nan);
}

void ms_scale_bf16(const uint16_t *x, const uint8_t *keep, float s, uint16_t *out, int64_t n, int64_t chunk,
                   int64_t block) {
    for (int64_t c = 0; c < n; c += chunk) {
        int64_t len = n - c < chunk ? n - c : chunk, body = block > 0 ? len - len % block : 0;
        bf16_run(x + c, keep + c, s, out + c, body, 0xffffu);
        bf16_run(x + c + body, keep + c + body, s, out + c + body, len - body, 0x7fc0u);
    }
}
