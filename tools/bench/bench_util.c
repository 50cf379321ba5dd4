/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_util.c -- small helpers of `agentmem bench`: errors, an arena for
 * dataset strings, files and directories, UTF-8, the token estimate, civil
 * time, a PRNG, a string map and latency samples.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"

int bench_fail(bench_err *e, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---------------------------------------------------------------- arena */

struct bench_arena_chunk {
    bench_arena_chunk *next;
    size_t used, cap;
    /* data follows, aligned for any object */
    max_align_t data[];
};

void *bench_arena_alloc(bench_arena *a, size_t n)
{
    const size_t align = sizeof(max_align_t);
    size_t need = (n + align - 1) / align * align;
    bench_arena_chunk *c = a->head;
    if (need < n)
        return NULL;
    if (!c || c->cap - c->used < need) {
        size_t cap = need > 65536 ? need : 65536;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->used = 0;
        c->cap = cap;
        c->next = a->head;
        a->head = c;
    }
    {
        char *p = (char *)c->data + c->used;
        c->used += need;
        return p;
    }
}

char *bench_arena_strndup(bench_arena *a, const char *s, size_t n)
{
    char *p = bench_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *bench_arena_strdup(bench_arena *a, const char *s)
{
    return bench_arena_strndup(a, s, strlen(s));
}

char *bench_arena_printf(bench_arena *a, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *p;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    p = bench_arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void bench_arena_free(bench_arena *a)
{
    bench_arena_chunk *c = a->head;
    while (c) {
        bench_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
}

int bench_grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
    size_t ncap;
    void *p;
    if (need <= *cap)
        return 0;
    ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > ((size_t)-1) / 2 / elem)
            return -1;
        ncap *= 2;
    }
    p = realloc(*ptr, ncap * elem);
    if (!p)
        return -1;
    *ptr = p;
    *cap = ncap;
    return 0;
}

/* ---------------------------------------------------------------- files */

char *bench_read_file(const char *path, size_t *len, bench_err *e)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (!f) {
        bench_fail(e, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        size_t got;
        if (bench_grow((void **)&buf, &cap, n + 65536 + 1, 1) != 0) {
            bench_fail(e, "%s: out of memory", path);
            goto fail;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                bench_fail(e, "%s: read error", path);
                goto fail;
            }
            break;
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
fail:
    fclose(f);
    free(buf);
    return NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int bench_remove_store(const char *path, bench_err *e)
{
    static const char *const ext[] = {"", "-wal", "-shm"};
    char p[4096 + 8];
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        snprintf(p, sizeof p, "%s%s", path, ext[i]);
        if (remove(p) != 0 && errno != ENOENT)
            return bench_fail(e, "%s: cannot remove: %s", p, strerror(errno));
    }
    return 0;
}

int bench_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return 0;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int bench_list_dir(const char *dir, const char *prefix, const char *suffix,
                   char ***names, size_t *n, bench_err *e)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **v = NULL;
    size_t cnt = 0, cap = 0;
    size_t lp = strlen(prefix), ls = strlen(suffix);
    *names = NULL;
    *n = 0;
    if (!d)
        return bench_fail(e, "%s: cannot open directory: %s", dir,
                          strerror(errno));
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        char *copy;
        if (l < lp + ls || strncmp(de->d_name, prefix, lp) != 0 ||
            strcmp(de->d_name + l - ls, suffix) != 0 ||
            !is_file(dir, de->d_name))
            continue;
        if (bench_grow((void **)&v, &cap, cnt + 1, sizeof *v) != 0 ||
            !(copy = malloc(l + 1))) {
            closedir(d);
            bench_free_names(v, cnt);
            return bench_fail(e, "%s: out of memory", dir);
        }
        memcpy(copy, de->d_name, l + 1);
        v[cnt++] = copy;
    }
    closedir(d);
    if (cnt)
        qsort(v, cnt, sizeof *v, cmp_str);
    *names = v;
    *n = cnt;
    return 0;
}

void bench_free_names(char **names, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

const char *bench_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---------------------------------------------------------------- utf-8 */

uint32_t bench_utf8_next(const char *s, size_t len, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t left = len - *i;
    uint32_t cp;
    size_t n, k;
    if (p[0] < 0x80) {
        *i += 1;
        return p[0];
    }
    if ((p[0] & 0xE0) == 0xC0) {
        n = 2;
        cp = p[0] & 0x1F;
    } else if ((p[0] & 0xF0) == 0xE0) {
        n = 3;
        cp = p[0] & 0x0F;
    } else if ((p[0] & 0xF8) == 0xF0) {
        n = 4;
        cp = p[0] & 0x07;
    } else {
        *i += 1;
        return 0xFFFD;
    }
    if (left < n) {
        *i += 1;
        return 0xFFFD;
    }
    for (k = 1; k < n; k++) {
        if ((p[k] & 0xC0) != 0x80) {
            *i += 1;
            return 0xFFFD;
        }
        cp = (cp << 6) | (p[k] & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
        *i += 1;
        return 0xFFFD;
    }
    *i += n;
    return cp;
}

int bench_is_cjk(uint32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) ||   /* unified ideographs */
           (cp >= 0x3400 && cp <= 0x4DBF) ||   /* extension A */
           (cp >= 0xF900 && cp <= 0xFAFF) ||   /* compatibility */
           (cp >= 0x20000 && cp <= 0x3134F) || /* extensions B..G */
           (cp >= 0x3040 && cp <= 0x30FF) ||   /* hiragana, katakana */
           (cp >= 0xAC00 && cp <= 0xD7AF);     /* hangul syllables */
}

int bench_is_space(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) ||
           cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

void bench_tokcount_add(bench_tokcount *c, const char *s)
{
    size_t i = 0, len = strlen(s);
    while (i < len) {
        uint32_t cp = bench_utf8_next(s, len, &i);
        if (bench_is_cjk(cp))
            c->cjk++;
        else if (!bench_is_space(cp))
            c->other++;
    }
}

long bench_tokcount_value(const bench_tokcount *c)
{
    return c->cjk + (c->other + 3) / 4;
}

long bench_tokens_estimate(const char *s)
{
    bench_tokcount c = {0, 0};
    bench_tokcount_add(&c, s);
    return bench_tokcount_value(&c);
}

/* ---------------------------------------------------------------- time */

int64_t bench_days_from_civil(int y, int m, int d)
{
    /* H. Hinnant's days_from_civil. */
    int64_t yy = (int64_t)y - (m <= 2);
    int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
    int64_t yoe = yy - era * 400;
    int64_t mp = (m + 9) % 12;
    int64_t doy = (153 * mp + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int64_t bench_civil_ms(int y, int mo, int d, int h, int mi, int s,
                       int tz_minutes)
{
    int64_t days = bench_days_from_civil(y, mo, d);
    int64_t secs = days * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + s -
                   (int64_t)tz_minutes * 60;
    return secs * 1000;
}

char *bench_iso(int64_t ms, int tz_minutes, char *buf)
{
    int64_t secs = ms / 1000 - (ms % 1000 < 0) + (int64_t)tz_minutes * 60;
    int64_t days = secs / 86400, rem = secs % 86400;
    int64_t z, era, doe, yoe, y, doy, mp, d, m;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    /* H. Hinnant's civil_from_days. */
    z = days + 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = yoe + era * 400;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y += (m <= 2);
    {
        /* format wide, then cut: the header promises at most 31 chars */
        char tmp[96];
        int a = tz_minutes < 0 ? -tz_minutes : tz_minutes;
        size_t n;
        if (tz_minutes == 0)
            snprintf(tmp, sizeof tmp, "%04d-%02d-%02dT%02d:%02d:%02dZ",
                     (int)y, (int)m, (int)d, (int)(rem / 3600),
                     (int)(rem % 3600 / 60), (int)(rem % 60));
        else
            snprintf(tmp, sizeof tmp,
                     "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
                     (int)y, (int)m, (int)d, (int)(rem / 3600),
                     (int)(rem % 3600 / 60), (int)(rem % 60),
                     tz_minutes < 0 ? '-' : '+', a / 60, a % 60);
        n = strlen(tmp);
        if (n > 31)
            n = 31;
        memcpy(buf, tmp, n);
        buf[n] = '\0';
    }
    return buf;
}

/* The clock of the bench's latencies: wall time, or with
 * AGENTMEM_BENCH_CLOCK=cpu the calling thread's CPU time (on a machine
 * other work shares, wall time measures the queue for a core; docs/bench/README.md
 * says which figure is which). */
double bench_mono_ms(void)
{
    struct timespec ts;
    const char *c = getenv("AGENTMEM_BENCH_CLOCK");
    clock_gettime(c && strcmp(c, "cpu") == 0 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---------------------------------------------------------------- rng */

void bench_rng_seed(bench_rng *r, uint64_t seed, uint64_t stream)
{
    r->s = seed * 0x9E3779B97F4A7C15ULL ^ (stream + 0x632BE59BD9B4E019ULL);
    (void)bench_rng_next(r);
}

uint64_t bench_rng_next(bench_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

size_t bench_rng_below(bench_rng *r, size_t n)
{
    /* Rejection sampling keeps it unbiased. */
    uint64_t lim = UINT64_MAX - UINT64_MAX % (uint64_t)n;
    uint64_t x;
    do {
        x = bench_rng_next(r);
    } while (x >= lim);
    return (size_t)(x % (uint64_t)n);
}

/* ---------------------------------------------------------------- map */

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static int map_rehash(bench_map *m, size_t ncap)
{
    bench_map nm = {NULL, NULL, NULL, ncap, 0};
    size_t i;
    nm.keys = calloc(ncap, sizeof *nm.keys);
    nm.lens = calloc(ncap, sizeof *nm.lens);
    nm.vals = calloc(ncap, sizeof *nm.vals);
    if (!nm.keys || !nm.lens || !nm.vals) {
        free(nm.keys);
        free(nm.lens);
        free(nm.vals);
        return -1;
    }
    for (i = 0; i < m->cap; i++) {
        size_t j;
        if (!m->keys[i])
            continue;
        j = (size_t)hash_bytes(m->keys[i], m->lens[i]) & (ncap - 1);
        while (nm.keys[j])
            j = (j + 1) & (ncap - 1);
        nm.keys[j] = m->keys[i];
        nm.lens[j] = m->lens[i];
        nm.vals[j] = m->vals[i];
        nm.n++;
    }
    free(m->keys);
    free(m->lens);
    free(m->vals);
    *m = nm;
    return 0;
}

int bench_map_put(bench_map *m, const char *key, size_t len, size_t val,
                  size_t *existing)
{
    size_t j;
    char *k;
    if ((m->n + 1) * 2 > m->cap &&
        map_rehash(m, m->cap ? m->cap * 2 : 64) != 0)
        return -1;
    j = (size_t)hash_bytes(key, len) & (m->cap - 1);
    while (m->keys[j]) {
        if (m->lens[j] == len && memcmp(m->keys[j], key, len) == 0) {
            if (existing)
                *existing = m->vals[j];
            return 0;
        }
        j = (j + 1) & (m->cap - 1);
    }
    k = malloc(len + 1);
    if (!k)
        return -1;
    memcpy(k, key, len);
    k[len] = '\0';
    m->keys[j] = k;
    m->lens[j] = len;
    m->vals[j] = val;
    m->n++;
    return 1;
}

int bench_map_get(const bench_map *m, const char *key, size_t len,
                  size_t *val)
{
    size_t j;
    if (!m->cap)
        return 0;
    j = (size_t)hash_bytes(key, len) & (m->cap - 1);
    while (m->keys[j]) {
        if (m->lens[j] == len && memcmp(m->keys[j], key, len) == 0) {
            *val = m->vals[j];
            return 1;
        }
        j = (j + 1) & (m->cap - 1);
    }
    return 0;
}

void bench_map_clear(bench_map *m)
{
    size_t i;
    for (i = 0; i < m->cap; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->lens);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- samples */

int bench_samples_add(bench_samples *s, double x)
{
    if (bench_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) != 0)
        return -1;
    s->v[s->n++] = x;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_samples_pct(bench_samples *s, double p)
{
    double r;
    size_t rank;
    if (!s->n)
        return 0;
    qsort(s->v, s->n, sizeof *s->v, cmp_double);
    r = p / 100.0 * (double)s->n;
    rank = (size_t)r;
    if ((double)rank < r)
        rank++;
    if (rank < 1)
        rank = 1;
    if (rank > s->n)
        rank = s->n;
    return s->v[rank - 1];
}

void bench_samples_free(bench_samples *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

double bench_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
