/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay_main.c -- runs a fuzz target over every file of a seed corpus
 * directory when the build has no libFuzzer, so each normal test run
 * exercises every fuzz target (and the sanitizer run checks them).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) { free(buf); fclose(f); return -1; }
            buf = nb;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        if (r == 0) break;
        len += r;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 1;
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) { files += run_file(argv[i]) > 0; continue; }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            files += run_file(path) > 0;
        }
        closedir(d);
    }
    /* A few fixed inputs so an empty corpus still runs the target. */
    static const char *fixed[] = {"", "a", "\xff\xfe", "2026-03-02T09:00:00+08:00",
                                  "以后周报都按三段写", "{\"step\":\"add\"}"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        LLVMFuzzerTestOneInput((const uint8_t *)fixed[i], strlen(fixed[i]));
    printf("%d passed, 0 failed\n", files + (int)(sizeof fixed / sizeof *fixed));
    return 0;
}
