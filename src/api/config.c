/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.c -- am_config defaults and the ranking knobs by name.
 *
 * One X-macro list, include/agentmem_knobs.h, is expanded three times: by
 * agentmem.h into the fields of am_rank_config, here into the defaults of
 * am_config_init_sized and into the table below (name, type, default,
 * bounds, doc, and the field's offset).  am_config_set / am_config_get and
 * the am_knob_* iterator read that table, so a tool that lists, sweeps or
 * documents the knobs (bench --rank, `agentmem knobs`) never keeps its own.
 *
 * struct_size: am_config_init is a macro passing the caller's
 * sizeof(am_config); every entry point that reads a config compares it
 * with the library's, so a caller built against another agentmem.h gets
 * AM_MISUSE instead of fields read at the wrong offsets.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "api/db_int.h"

typedef struct knob_entry {
    am_knob info;
    size_t offset; /* of the field in am_rank_config */
} knob_entry;

#define KNOB_TYPE_double AM_KNOB_DOUBLE
#define KNOB_TYPE_int AM_KNOB_INT

static const knob_entry knobs[] = {
#define AM_KNOB(type, name, def, min, max, doc)                                 \
    {{#name, KNOB_TYPE_##type, def, min, max, doc}, offsetof(am_rank_config, name)},
#include "agentmem_knobs.h"
#undef AM_KNOB
};

#define N_KNOBS (sizeof knobs / sizeof *knobs)

void am_config_init_sized(am_config *cfg, size_t struct_size)
{
    if (!cfg) return;
    if (struct_size != sizeof *cfg) {
        /* another layout: only the first field is known to be there */
        if (struct_size >= sizeof cfg->struct_size) cfg->struct_size = struct_size;
        return;
    }
    memset(cfg, 0, sizeof *cfg);
    cfg->struct_size = sizeof *cfg;
    cfg->max_text_bytes = 32768;
    cfg->busy_timeout_ms = 5000;
    cfg->redact = AM_REDACT_ALL;
    cfg->events_max_rows = 100000;
    cfg->events_max_age_ms = (am_time)7 * 24 * 3600 * 1000;
    am_rank_config *r = &cfg->rank;
#define AM_KNOB(type, name, def, min, max, doc) r->name = def;
#include "agentmem_knobs.h"
#undef AM_KNOB
}

size_t am_knob_count(void) { return N_KNOBS; }

const am_knob *am_knob_info(size_t i) { return i < N_KNOBS ? &knobs[i].info : NULL; }

static const knob_entry *find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < N_KNOBS; i++)
        if (strcmp(knobs[i].info.name, name) == 0) return &knobs[i];
    return NULL;
}

const am_knob *am_knob_find(const char *name)
{
    const knob_entry *k = find(name);
    return k ? &k->info : NULL;
}

int am_knob_check(const char *name, double value, char *msg, size_t cap)
{
    const knob_entry *k = find(name);
    char buf[256];
    if (!k)
        snprintf(buf, sizeof buf, "no knob \"%.80s\"", name ? name : "(null)");
    else if (isnan(value) || value < k->info.min || value > k->info.max)
        snprintf(buf, sizeof buf, "knob %s: %g is outside [%g, %g]", k->info.name, value,
                 k->info.min, k->info.max);
    else if (k->info.type == AM_KNOB_INT && value != floor(value))
        snprintf(buf, sizeof buf, "knob %s: %g is not an integer", k->info.name, value);
    else
        return AM_OK;
    if (msg && cap) snprintf(msg, cap, "%s", buf);
    return AM_INVALID;
}

int am__config_check_size(const am_config *cfg, char *msg, size_t cap)
{
    if (cfg->struct_size == sizeof *cfg) return AM_OK;
    snprintf(msg, cap,
             "am_config is %zu bytes in this library, struct_size says %zu: not filled by "
             "am_config_init, or built against another agentmem.h",
             sizeof *cfg, cfg->struct_size);
    return AM_MISUSE;
}

int am_config_set(am_config *cfg, const char *name, double value)
{
    char msg[256];
    if (!cfg || !name || am__config_check_size(cfg, msg, sizeof msg)) return AM_MISUSE;
    if (am_knob_check(name, value, NULL, 0)) return AM_INVALID;
    const knob_entry *k = find(name);
    void *f = (char *)&cfg->rank + k->offset;
    if (k->info.type == AM_KNOB_INT)
        *(int *)f = (int)value;
    else
        *(double *)f = value;
    return AM_OK;
}

int am_config_get(const am_config *cfg, const char *name, double *value)
{
    char msg[256];
    if (!cfg || !name || !value || am__config_check_size(cfg, msg, sizeof msg))
        return AM_MISUSE;
    const knob_entry *k = find(name);
    if (!k) return AM_INVALID;
    const void *f = (const char *)&cfg->rank + k->offset;
    *value = k->info.type == AM_KNOB_INT ? *(const int *)f : *(const double *)f;
    return AM_OK;
}
