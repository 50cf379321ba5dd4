/* SPDX-License-Identifier: Apache-2.0 */
/*
 * assets.c -- the memory inspector's page (docs/INSPECTOR.md): `GET /`
 * is tools/server/web/index.html, `GET /inspector/{file}` its script and
 * style sheet.  The files are built into the binary (CMakeLists.txt
 * embeds them with am_embed_file, as docs/openapi.json), so the server
 * needs no web root and serves nothing but this fixed table: a name not
 * in it is a 404, whatever it contains.
 *
 * These routes are public (no token): the files hold no data.  The page
 * signs in with a token the user types and sends it as a bearer header
 * on each /v1 call it makes.  Each reply carries a Content-Security-Policy
 * that allows only this server's own script, style and connections (no
 * inline script, no other origin, no framing, no plugins), so a stored
 * text that reached the page as markup still could not run.
 */
#include <string.h>

#include "srv_int.h"

/* the embedded files (web_*_gen.c, made by CMake) */
extern const char am__srv_web_index_html[], am__srv_web_app_js[], am__srv_web_style_css[];
extern const unsigned long am__srv_web_index_html_len, am__srv_web_app_js_len,
    am__srv_web_style_css_len;

static const char csp[] = "default-src 'none'; script-src 'self'; style-src 'self'; "
                          "img-src 'self'; connect-src 'self'; base-uri 'none'; "
                          "form-action 'none'; frame-ancestors 'none'";

static const struct asset {
    const char *name; /* the {file} of /inspector/{file}; "" for / */
    const char *ctype;
    const char *bytes;
    const unsigned long *len;
} assets[] = {
    {"", "text/html; charset=utf-8", am__srv_web_index_html, &am__srv_web_index_html_len},
    {"app.js", "text/javascript; charset=utf-8", am__srv_web_app_js, &am__srv_web_app_js_len},
    {"style.css", "text/css; charset=utf-8", am__srv_web_style_css, &am__srv_web_style_css_len},
};

void am__srv_h_asset(srv_ctx *c)
{
    const char *name = c->params[0] ? c->params[0] : "";
    for (size_t i = 0; i < sizeof assets / sizeof *assets; i++) {
        if (strcmp(assets[i].name, name) != 0) continue;
        am__srv_text(c->out, 200, assets[i].ctype, assets[i].bytes, *assets[i].len);
        if (c->out->status == 200) c->out->csp = csp;
        return;
    }
    am__srv_error(c->out, "not_found", NULL, "no such file of the inspector");
}
