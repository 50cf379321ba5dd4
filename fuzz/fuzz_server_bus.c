/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_server_bus.c -- the parsers of the event bus between server
 * instances (tools/server/bus.c): a note read from Redis pub/sub (any
 * bytes another process may publish on the channel) and the --cache URL.
 * A note is taken only in its one canonical form ("am1 <32 lowercase hex>
 * <seq>", the seq without sign or leading zero): what is taken prints back
 * byte for byte.  A URL taken has a host of name characters, a port 1 to
 * 65535, a database 0 to 1000000, and a password whenever it has a user.
 * Input: the bytes as a note, and (up to a NUL) as a URL.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"
#include "srv_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char inst[33];
    int64_t seq;
    if (am__srv_bus_parse_note((const char *)data, size, inst, &seq) == 0) {
        char back[64];
        int n = snprintf(back, sizeof back, "am1 %s %lld", inst, (long long)seq);
        if (n < 0 || (size_t)n != size || memcmp(back, data, size) != 0 || seq < 0) abort();
    }
    char *url = malloc(size + 1);
    if (!url) return 0;
    memcpy(url, data, size);
    url[size] = '\0';
    srv_bus_url u;
    const char *why = NULL;
    if (am__srv_bus_parse_url(url, &u, &why) == 0) {
        if (!u.host[0] || u.port < 1 || u.port > 65535 || u.db < 0 || u.db > 1000000 ||
            (u.user[0] && !u.pass[0]) || strncmp(url, "redis://", 8) != 0)
            abort();
        for (const char *h = u.host; *h; h++)
            if (*h == '/' || *h == '@' || *h == ' ' || (unsigned char)*h < 0x21) abort();
        am__cache_url l;
        char err[256];
        if (am__cache_url_parse(url, NULL, &l, err, sizeof err) == AM_OK &&
            (strcmp(l.host, u.host) != 0 || l.port != u.port || l.db != u.db ||
             strcmp(l.user ? l.user : "", u.user) != 0 || strcmp(l.pass ? l.pass : "", u.pass) != 0))
            abort();
        am__cache_url_clear(&l, NULL);
    } else if (!why || !*why) abort();
    free(url);
    return 0;
}
