/* SPDX-License-Identifier: Apache-2.0 */
/*
 * store_path.c -- which store a command opens when none is named: --db /
 * --store, else $AGENTMEM_DB, else the data home's
 * ${XDG_DATA_HOME:-$HOME/.local/share}/agentmem/agentmem.db, whose missing
 * folders are created (0700) by the first command that writes.  A store
 * never depends on the working directory unless a relative path is given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

int am_cli_default_db(char *buf, size_t cap, const char **from)
{
    const char *env = getenv("AGENTMEM_DB");
    if (env && *env) {
        *from = "$AGENTMEM_DB";
        return snprintf(buf, cap, "%s", env) < (int)cap ? 0 : -1;
    }
    *from = "default";
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    /* the XDG rule: a relative XDG_DATA_HOME is ignored */
    if (xdg && xdg[0] == '/') n = snprintf(buf, cap, "%s/agentmem/agentmem.db", xdg);
    else if (home && *home) n = snprintf(buf, cap, "%s/.local/share/agentmem/agentmem.db", home);
    else return -1;
    return n >= 0 && n < (int)cap ? 0 : -1;
}

int am_cli_make_store_dir(const char *db_path)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", db_path) >= (int)sizeof dir) goto too_long;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = '\0';
    /* each missing folder from the top down; existing ones are left as
     * they are (never chmod'ed) */
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        struct stat st;
        if (stat(dir, &st) != 0) {
            if (errno != ENOENT || (mkdir(dir, 0700) != 0 && errno != EEXIST)) {
                fprintf(stderr, "agentmem: cannot create the store's folder %s: %s\n"
                                "  (name another store with --db PATH or $AGENTMEM_DB)\n",
                        dir, strerror(errno));
                return 1;
            }
        } else if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "agentmem: cannot create the store's folder %s: a file is in the way\n"
                            "  (name another store with --db PATH or $AGENTMEM_DB)\n", dir);
            return 1;
        }
        *p = c;
        if (c == '\0') break;
    }
    return 0;
too_long:
    fprintf(stderr, "agentmem: the store's path is too long: %.200s...\n", db_path);
    return 1;
}
