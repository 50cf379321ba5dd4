/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.c -- the terminal progress bar (progress.h).
 */
#include "progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_S 0.1
#define BAR_WIDTH 24

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n with thousands separators into buf */
static const char *grouped(size_t n, char *buf, size_t cap)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%zu", n);
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < cap; i++) {
        if (i > 0 && (len - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* "4s", "3m12s", "2h05m" */
static const char *duration(double s, char *buf, size_t cap)
{
    long v = s < 0 ? 0 : (long)(s + 0.5);
    if (v < 60) snprintf(buf, cap, "%lds", v);
    else if (v < 3600) snprintf(buf, cap, "%ldm%02lds", v / 60, v % 60);
    else snprintf(buf, cap, "%ldh%02ldm", v / 3600, v % 3600 / 60);
    return buf;
}

static void draw(am_progress *p, double now, int final)
{
    char line[256], a[32], b[32], t[32];
    double took = now - p->t0;
    double rate = took > 0 ? (double)p->done / took : 0;
    int n;
    if (p->total) {
        size_t done = p->done < p->total ? p->done : p->total;
        int fill = (int)((double)done / (double)p->total * BAR_WIDTH);
        char bar[BAR_WIDTH + 1];
        memset(bar, '#', (size_t)fill);
        memset(bar + fill, '.', (size_t)(BAR_WIDTH - fill));
        bar[BAR_WIDTH] = '\0';
        n = snprintf(line, sizeof line, "%s [%s] %s/%s %s %3d%%", p->what, bar,
                     grouped(p->done, a, sizeof a), grouped(p->total, b, sizeof b), p->unit,
                     (int)((double)done * 100.0 / (double)p->total));
    } else {
        n = snprintf(line, sizeof line, "%s %s %s", p->what, grouped(p->done, a, sizeof a), p->unit);
    }
    if (n < 0 || (size_t)n >= sizeof line) n = (int)sizeof line - 1;
    size_t used = (size_t)n;
    if (final) {
        snprintf(line + used, sizeof line - used, "  done in %s", duration(took, t, sizeof t));
    } else if (took >= 0.5 && rate > 0) {
        int m = snprintf(line + used, sizeof line - used, "  %.0f/s", rate);
        if (m > 0 && (size_t)m < sizeof line - used) used += (size_t)m;
        if (p->total && p->done < p->total)
            snprintf(line + used, sizeof line - used, "  ETA %s",
                     duration((double)(p->total - p->done) / rate, t, sizeof t));
    }
    /* \r and erase to the end of the line: a shorter line leaves nothing */
    fprintf(p->out, "\r%s\033[K%s", line, final ? "\n" : "");
    fflush(p->out);
    p->last = now;
    p->drawn = !final;
}

void am_progress_start(am_progress *p, const char *what, const char *unit, size_t total, int quiet)
{
    memset(p, 0, sizeof *p);
    p->what = what;
    p->unit = unit;
    p->total = total;
    p->out = !quiet && isatty(fileno(stderr)) ? stderr : NULL;
    p->t0 = mono_s();
    if (p->out) draw(p, p->t0, 0);
}

void am_progress_set(am_progress *p, size_t done, size_t total)
{
    p->done = done;
    if (total) p->total = total;
    if (!p->out) return;
    double now = mono_s();
    if (now - p->last >= REDRAW_S) draw(p, now, 0);
}

void am_progress_clear(am_progress *p)
{
    if (!p->out || !p->drawn) return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->drawn = 0;
    p->last = 0; /* drawn again at the next set */
}

void am_progress_end(am_progress *p)
{
    if (!p->out) return;
    draw(p, mono_s(), 1);
    p->out = NULL;
}

void am_progress_fn_adapter(void *ctx, size_t done, size_t total)
{
    am_progress_set(ctx, done, total);
}
