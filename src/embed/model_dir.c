/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model_dir.c -- where the built-in encoder's weights are looked for (see
 * am_model_dirs_find in include/agentmem.h).
 *
 * The embedder "auto" takes the first folder of the list that holds
 * model.json and falls back to lexical recall when none does; the list
 * never names the current directory, so a program finds the same weights
 * from any working directory.  The explicit "use-lite" keeps its older
 * lookup (the variables, then ./models/use-lite) and then tries the list.
 * Reads the environment and the file system only; no state is kept.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "embed/embed.h"

#ifndef AM_DATADIR
#define AM_DATADIR "/usr/local/share/agentmem"
#endif

/* 1 when dir/model.json is a regular file */
static int holds_model(const char *dir)
{
    char path[1100];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/model.json", dir) >= (int)sizeof path) return 0;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Appends "<base><tail>" to out (when it fits and base is set). */
static void add_dir(am_model_dirs *out, const char *from, const char *base, const char *tail)
{
    if (!base || !*base || out->n >= AM_MODEL_DIRS_MAX) return;
    char *d = out->dir[out->n];
    int len = snprintf(d, sizeof out->dir[0], "%s%s", base, tail);
    if (len < 0 || len >= (int)sizeof out->dir[0]) return; /* too long: not a folder we can use */
    out->from[out->n++] = from;
}

int am_model_dirs_find(am_model_dirs *out)
{
    if (!out) return AM_MISUSE;
    memset(out, 0, sizeof *out);
    out->found = -1;
    add_dir(out, "$AGENTMEM_MODEL_DIR", getenv("AGENTMEM_MODEL_DIR"), "/use-lite");
    add_dir(out, "$AGENTMEM_MODEL_DIR", getenv("AGENTMEM_MODEL_DIR"), "");
    add_dir(out, "$AM_MODEL_DIR", getenv("AM_MODEL_DIR"), "/use-lite");
    add_dir(out, "$AM_MODEL_DIR", getenv("AM_MODEL_DIR"), "");
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg && *xdg) add_dir(out, "data home", xdg, "/agentmem/models/use-lite");
    else add_dir(out, "data home", getenv("HOME"), "/.local/share/agentmem/models/use-lite");
    add_dir(out, "data dir", AM_DATADIR, "/models/use-lite");
    /* <folder of the program>/../share/agentmem/models/use-lite */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            add_dir(out, "program dir", exe, "/../share/agentmem/models/use-lite");
        }
    }
    for (size_t i = 0; i < out->n && out->found < 0; i++)
        if (holds_model(out->dir[i])) out->found = (int)i;
    return AM_OK;
}

const char *am__embed_use_default_dir(char *buf, size_t cap)
{
    am_model_dirs d;
    am_model_dirs_find(&d);
    /* a variable's folder holding the model; else the variable itself
     * (the error then names it) */
    if (d.found >= 0 && d.from[d.found][0] == '$') {
        snprintf(buf, cap, "%s", d.dir[d.found]);
        return buf;
    }
    const char *var = getenv("AGENTMEM_MODEL_DIR");
    if (!var || !*var) var = getenv("AM_MODEL_DIR");
    if (var && *var) {
        snprintf(buf, cap, "%s", var);
        return buf;
    }
    if (holds_model("models/use-lite") || d.found < 0) return "models/use-lite";
    snprintf(buf, cap, "%s", d.dir[d.found]);
    return buf;
}
