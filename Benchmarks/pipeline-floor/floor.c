/* The pipeline's floor: the JSON lines of `stroll bench --variant pipeline`
 * formatted in C, update by update, into a preallocated buffer and written to
 * /dev/null, as a careful C programmer would: numbers by a shortest
 * round-trip formatter (Schubfach, with integers below 10^15 as integers, the
 * rule Stroll's lines follow), strings escape-checked and copied, keys and
 * punctuation copied as they are. Times come as the text Stroll wrote
 * (Stroll formats them from seconds: the floor does a little less).
 *
 *   floor TOKENS LINES UPDATES
 *
 * TOKENS is tokens.py's binary form of LINES (stroll bench --dump-lines). The
 * floor first formats every update once and checks the bytes equal LINES;
 * then formats UPDATES updates (cycling through the walk's), timing each,
 * and prints one JSON object: p50_us, p99_us, mean_us, updates, bytes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct { const uint8_t *start; size_t ntokens; } Update;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static const char pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static const uint64_t pow10_table[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
    10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
    10000000000000000000ull};

static inline int digit_count(uint64_t v) {
    int guess = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;
    return guess + (guess < 20 && v >= pow10_table[guess]) + (v == 0);
}

static inline void write_digits(uint64_t v, int count, char *out) {
    char *p = out + count;
    while (p - out >= 2) {
        uint64_t r = v % 100;
        v /= 100;
        p -= 2;
        memcpy(p, pairs + 2 * r, 2);
    }
    if (p > out) *out = (char)('0' + v % 10);
}

static inline char *write_int(int64_t i, char *out) {
    uint64_t v = i < 0 ? (uint64_t)(-(i + 1)) + 1 : (uint64_t)i;
    if (i < 0) *out++ = '-';
    int n = digit_count(v);
    write_digits(v, n, out);
    return out + n;
}

/* 5^m shifted to bit 62, m = 0..22: the upper half of g for 10^m (the lower is 1). */
static uint64_t g1_table[23];

static inline uint64_t rop(uint64_t g1, uint64_t cp) {
    unsigned __int128 y = (unsigned __int128)g1 * cp;
    uint64_t y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
    uint64_t z = y0 >> 1;
    uint64_t vbp = y1 + (z >> 63);
    const uint64_t mask63 = (1ull << 63) - 1;
    return vbp | (((z & mask63) + mask63) >> 63);
}

/* Shortest digits of a positive non-whole double below 2^53 that prints
 * without an exponent; 0 when out of that range. */
static inline int shortest(double v, uint64_t *digits_out, int *exp_out, int *count_out) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    bits &= ~(1ull << 63);
    int biased = (int)(bits >> 52);
    uint64_t fraction = bits & ((1ull << 52) - 1);
    if (biased <= 0 || biased >= 1075) return 0;
    uint64_t c = (1ull << 52) | fraction;
    int q = biased - 1075;
    if (-q < 53 && (c & ((1ull << -q) - 1)) == 0) return 0;
    uint64_t out = c & 1, cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (fraction != 0 || biased == 1) {
        cbl = cb - 2;
        k = (int)(((int64_t)q * 661971961083ll) >> 41);
    } else {
        cbl = cb - 1;
        k = (int)(((int64_t)q * 661971961083ll - 274743187321ll) >> 41);
    }
    int m = -k;
    if (m < 0 || m > 22) return 0;
    int h = q + (int)(((int64_t)m * 913124641741ll) >> 38) + 2;
    uint64_t g1 = g1_table[m];
    uint64_t vb = rop(g1, cb << h), vbl = rop(g1, cbl << h), vbr = rop(g1, cbr << h);
    uint64_t s = vb >> 2, d;
    int found = 0;
    if (s >= 100) {
        uint64_t sp10 = 10 * (s / 10), tp10 = sp10 + 10;
        int upin = vbl + out <= sp10 << 2, wpin = (tp10 << 2) + out <= vbr;
        if (upin != wpin) { d = upin ? sp10 : tp10; found = 1; }
    }
    if (!found) {
        uint64_t t = s + 1;
        int uin = vbl + out <= s << 2, win = (t << 2) + out <= vbr;
        if (uin != win) d = uin ? s : t;
        else {
            int64_t cmp = (int64_t)(vb - ((s + t) << 1));
            d = (cmp < 0 || (cmp == 0 && (s & 1) == 0)) ? s : t;
        }
    }
    while (d % 10 == 0) { d /= 10; k++; }
    int n = digit_count(d);
    if (n + k < -3) return 0;
    *digits_out = d; *exp_out = k; *count_out = n;
    return 1;
}

static char *write_number(double v, char *p) {
    if (v != v || v - v != 0) { memcpy(p, "null", 4); return p + 4; }
    double r = __builtin_round(v);
    if (r == v && __builtin_fabs(v) < 1e15) return write_int((int64_t)v, p);
    uint64_t digits; int e, n;
    if (!shortest(v, &digits, &e, &n)) {
        fprintf(stderr, "floor: %.17g is outside the formatter's range\n", v);
        exit(1);
    }
    if (v < 0) *p++ = '-';
    int point = n + e;
    if (point <= 0) {
        *p++ = '0'; *p++ = '.';
        for (int i = 0; i < -point; i++) *p++ = '0';
        write_digits(digits, n, p);
        return p + n;
    }
    int frac = n - point;
    uint64_t high = digits / pow10_table[frac], low = digits % pow10_table[frac];
    write_digits(high, point, p);
    p[point] = '.';
    write_digits(low, frac, p + point + 1);
    return p + n + 1;
}

static char *write_string(const uint8_t *s, size_t n, char *p) {
    *p++ = '"';
    size_t i = 0;
    for (; i < n; i++) if (s[i] < 0x20 || s[i] == '"' || s[i] == '\\') break;
    memcpy(p, s, i);
    p += i;
    for (; i < n; i++) {
        uint8_t b = s[i];
        if (b == '"' || b == '\\') { *p++ = '\\'; *p++ = (char)b; }
        else if (b == '\n') { *p++ = '\\'; *p++ = 'n'; }
        else if (b == '\r') { *p++ = '\\'; *p++ = 'r'; }
        else if (b == '\t') { *p++ = '\\'; *p++ = 't'; }
        else if (b < 0x20) { p += sprintf(p, "\\u%04x", b); }
        else *p++ = (char)b;
    }
    *p++ = '"';
    return p;
}

/* Formats one update's tokens at p; returns the end. */
static char *format_update(const Update *u, char *p) {
    const uint8_t *t = u->start;
    for (size_t k = 0; k < u->ntokens; k++) {
        uint8_t kind = *t++;
        if (kind == 'n') {
            double v;
            memcpy(&v, t, 8);
            t += 8;
            p = write_number(v, p);
        } else {
            uint16_t len;
            memcpy(&len, t, 2);
            t += 2;
            if (kind == 'r') { memcpy(p, t, len); p += len; }
            else p = write_string(t, len, p);
            t += len;
        }
    }
    return p;
}

static uint8_t *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
    fclose(f);
    *size = (size_t)n;
    return b;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: floor TOKENS LINES UPDATES\n"); return 2; }
    uint64_t five = 1;
    for (int m = 0; m <= 22; m++) { g1_table[m] = five << (__builtin_clzll(five) - 1); five *= 5; }
    size_t tsize, lsize;
    uint8_t *tokens = slurp(argv[1], &tsize);
    uint8_t *lines = slurp(argv[2], &lsize);
    long updates = atol(argv[3]);
    if (tsize < 8 || memcmp(tokens, "SPF1", 4) != 0) { fprintf(stderr, "floor: %s is not a token file\n", argv[1]); return 1; }
    uint32_t nupdates;
    memcpy(&nupdates, tokens + 4, 4);
    Update *us = calloc(nupdates, sizeof(Update));
    const uint8_t *t = tokens + 8;
    for (uint32_t u = 0; u < nupdates; u++) {
        uint32_t n;
        memcpy(&n, t, 4);
        t += 4;
        us[u].start = t;
        us[u].ntokens = n;
        for (uint32_t k = 0; k < n; k++) {
            uint8_t kind = *t++;
            if (kind == 'n') t += 8;
            else { uint16_t len; memcpy(&len, t, 2); t += 2 + len; }
        }
    }
    /* The floor's own check: every update formatted once gives LINES exactly. */
    char *all = malloc(lsize + 65536), *p = all;
    for (uint32_t u = 0; u < nupdates; u++) p = format_update(&us[u], p);
    if ((size_t)(p - all) != lsize || memcmp(all, lines, lsize) != 0) {
        size_t at = 0, n = (size_t)(p - all) < lsize ? (size_t)(p - all) : lsize;
        while (at < n && all[at] == (char)lines[at]) at++;
        fprintf(stderr, "floor: its lines differ from %s at byte %zu (%zu bytes vs %zu)\n", argv[2], at, (size_t)(p - all), lsize);
        return 1;
    }
    int sink = open("/dev/null", O_WRONLY);
    char *buf = malloc(1 << 20);
    double *samples = malloc(sizeof(double) * (size_t)updates);
    size_t bytes = 0;
    for (long i = 0; i < updates; i++) {
        uint64_t t0 = now_ns();
        char *end = format_update(&us[(size_t)i % nupdates], buf);
        if (write(sink, buf, (size_t)(end - buf)) < 0) { perror("write"); return 1; }
        uint64_t t1 = now_ns();
        bytes += (size_t)(end - buf);
        samples[i] = (double)(t1 - t0) / 1000.0;
    }
    double sum = 0;
    for (long i = 0; i < updates; i++) sum += samples[i];
    qsort(samples, (size_t)updates, sizeof(double), cmp_double);
    printf("{\"p50_us\":%.3f,\"p99_us\":%.3f,\"mean_us\":%.3f,\"updates\":%ld,\"bytes\":%zu}\n",
           samples[updates / 2], samples[(updates * 99) / 100], sum / (double)updates, updates, bytes);
    return 0;
}
