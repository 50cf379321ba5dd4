/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_llm_parse.c -- the LLM pass's reply parser (am__llm_parse,
 * src/lifecycle/llm.c): a chat completions body in, the proposals out.
 *
 * Good replies (with a code fence, usage, every optional field), an empty
 * list, proposals missing fields or with fields of the wrong type (each
 * dropped alone and counted), huge replies (the caps on proposals, text,
 * key and ids), bodies and contents that are not JSON, refusals, nested
 * garbage, embedded NULs and invalid UTF-8 -- never a crash, and no
 * message ever quotes the model's content.
 */
#include <jansson.h>

#include "test.h"

#include "agentmem.h"
#include "lifecycle/llm.h"

/* A chat completions body whose message content is content (NULL: null). */
static char *body_of(const char *content)
{
    json_t *msg = json_pack("{s:s, s:o}", "role", "assistant", "content",
                            content ? json_string(content) : json_null());
    json_t *b = json_pack("{s:[{s:i, s:o}], s:{s:i}}", "choices", "index", 0, "message", msg,
                          "usage", "total_tokens", 321);
    char *s = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    return s;
}

static int parse(const char *content, am__arena *ar, am__llm_reply *r, char *err, size_t n)
{
    char *b = body_of(content);
    memset(r, 0, sizeof *r);
    int rc = am__llm_parse(b, strlen(b), ar, r, err, n);
    free(b);
    return rc;
}

static void test_good(void)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    am__llm_reply r;
    char err[256] = "";
    int rc = parse("```json\n{\"memories\": [{\"kind\": \"preference\", \"text\": \"User wants "
                   "PDF\", \"key\": \"preference.format\", \"confidence\": 0.9, "
                   "\"source_event_ids\": [\"e1\", \"e2\"]}, {\"kind\": \"fact\", \"text\": "
                   "\"用户住在上海\"}]}\n```",
                   &ar, &r, err, sizeof err);
    CHECK_EQ_INT(rc, AM_OK);
    CHECK_EQ_INT(r.n, 2);
    CHECK_EQ_INT(r.dropped, 0);
    CHECK_EQ_INT(r.tokens, 321);
    CHECK_EQ_INT(r.refused, 0);
    if (r.n == 2) {
        CHECK_EQ_STR(r.p[0].kind, "preference");
        CHECK_EQ_STR(r.p[0].text, "User wants PDF");
        CHECK_EQ_STR(r.p[0].key, "preference.format");
        CHECK_NEAR(r.p[0].confidence, 0.9, 1e-9);
        CHECK_EQ_INT(r.p[0].n_ids, 2);
        CHECK_EQ_STR(r.p[0].ids[1], "e2");
        CHECK_EQ_STR(r.p[1].text, "用户住在上海");
        CHECK(r.p[1].key == NULL);
        CHECK_NEAR(r.p[1].confidence, -1, 1e-9);
        CHECK_EQ_INT(r.p[1].n_ids, 0);
    }
    am__arena_free(&ar);
}

static void test_empty(void)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    am__llm_reply r;
    char err[256];
    CHECK_EQ_INT(parse("{\"memories\": []}", &ar, &r, err, sizeof err), AM_OK);
    CHECK_EQ_INT(r.n, 0);
    CHECK_EQ_INT(r.dropped, 0);
    /* no "memories" at all, or not an array: malformed, not a refusal */
    CHECK_EQ_INT(parse("{}", &ar, &r, err, sizeof err), AM_BACKEND);
    CHECK_CONTAINS(err, "memories");
    CHECK_EQ_INT(r.refused, 0);
    CHECK_EQ_INT(parse("{\"memories\": {\"kind\": \"fact\"}}", &ar, &r, err, sizeof err),
                 AM_BACKEND);
    CHECK_EQ_INT(parse("{\"memories\": null}", &ar, &r, err, sizeof err), AM_BACKEND);
    am__arena_free(&ar);
}

static void test_missing_and_wrong_types(void)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    am__llm_reply r;
    char err[256];
    int rc = parse("{\"memories\": ["
                   "{\"text\": \"no kind\"},"
                   "{\"kind\": \"fact\"},"
                   "{\"kind\": \"fact\", \"text\": \"\"},"
                   "{\"kind\": \"weird\", \"text\": \"unknown kind\"},"
                   "{\"kind\": [\"fact\"], \"text\": \"kind is a list\"},"
                   "{\"kind\": \"fact\", \"text\": 42},"
                   "\"a string\", 7, null, [],"
                   "{\"kind\": \"fact\", \"text\": \"kept\", \"key\": 5, \"confidence\": \"high\","
                   " \"source_event_ids\": \"e1\"},"
                   "{\"kind\": \"profile\", \"text\": \"kept too\", \"confidence\": 7,"
                   " \"source_event_ids\": [1, null, \"e3\", {\"a\": 1}]},"
                   "{\"kind\": \"fact\", \"text\": \"negative\", \"confidence\": -0.5}]}",
                   &ar, &r, err, sizeof err);
    CHECK_EQ_INT(rc, AM_OK);
    CHECK_EQ_INT(r.n, 3);
    CHECK_EQ_INT(r.dropped, 10);
    if (r.n == 3) {
        CHECK_EQ_STR(r.p[0].text, "kept");
        CHECK(r.p[0].key == NULL);
        CHECK_NEAR(r.p[0].confidence, -1, 1e-9);
        CHECK_EQ_INT(r.p[0].n_ids, 0);
        CHECK_NEAR(r.p[1].confidence, -1, 1e-9);
        CHECK_EQ_INT(r.p[1].n_ids, 1);
        CHECK_EQ_STR(r.p[1].ids[0], "e3");
        CHECK_NEAR(r.p[2].confidence, -1, 1e-9);
    }
    /* a NUL escaped into the content: the whole reply is refused */
    CHECK_EQ_INT(parse("{\"memories\": [{\"kind\": \"fact\", \"text\": \"a\\u0000b\"}]}", &ar,
                       &r, err, sizeof err),
                 AM_BACKEND);
    CHECK_EQ_INT(r.n, 0);
    am__arena_free(&ar);
}

static void test_huge(void)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    am__llm_reply r;
    char err[256];
    /* 1000 proposals: the first 64 read, the rest dropped */
    json_t *list = json_array();
    for (int i = 0; i < 1000; i++)
        json_array_append_new(list, json_pack("{s:s, s:s}", "kind", "fact", "text", "x"));
    json_t *doc = json_pack("{s:o}", "memories", list);
    char *content = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    CHECK_EQ_INT(parse(content, &ar, &r, err, sizeof err), AM_OK);
    CHECK_EQ_INT(r.n, AM__LLM_MAX_PROPOSALS);
    CHECK_EQ_INT(r.dropped, 1000 - AM__LLM_MAX_PROPOSALS);
    free(content);
    /* an over-long text dropped; an over-long key ignored; ids capped */
    char big[AM__LLM_MAX_TEXT + 2], key[AM__LLM_MAX_KEY + 2];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    json_t *ids = json_array();
    for (int i = 0; i < 100; i++) json_array_append_new(ids, json_sprintf("e%d", i));
    doc = json_pack("{s:[{s:s, s:s}, {s:s, s:s, s:s, s:o}]}", "memories", "kind", "fact",
                    "text", big, "kind", "fact", "text", "short", "key", key,
                    "source_event_ids", ids);
    content = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    CHECK_EQ_INT(parse(content, &ar, &r, err, sizeof err), AM_OK);
    CHECK_EQ_INT(r.n, 1);
    CHECK_EQ_INT(r.dropped, 1);
    if (r.n == 1) {
        CHECK(r.p[0].key == NULL);
        CHECK_EQ_INT(r.p[0].n_ids, AM__LLM_MAX_IDS);
    }
    free(content);
    /* a text of exactly the cap is kept */
    big[AM__LLM_MAX_TEXT] = '\0';
    doc = json_pack("{s:[{s:s, s:s}]}", "memories", "kind", "fact", "text", big);
    content = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    CHECK_EQ_INT(parse(content, &ar, &r, err, sizeof err), AM_OK);
    CHECK_EQ_INT(r.n, 1);
    free(content);
    am__arena_free(&ar);
}

static void test_not_json(void)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    am__llm_reply r;
    char err[256];
    static const char *const bodies[] = {"", "not json", "{\"choices\": []}", "[1,2,3]",
                                         "{\"choices\": [{\"message\": \"hi\"}]}",
                                         "{\"choices\": [{\"message\": {\"content\": 5}}]}",
                                         "\xff\xfe{}", NULL};
    for (int i = 0; bodies[i]; i++) {
        memset(&r, 0, sizeof r);
        err[0] = '\0';
        CHECK_EQ_INT(am__llm_parse(bodies[i], strlen(bodies[i]), &ar, &r, err, sizeof err),
                     AM_BACKEND);
        CHECK(err[0] != '\0');
        CHECK_EQ_INT(r.n, 0);
    }
    CHECK_EQ_INT(am__llm_parse(NULL, 0, &ar, &r, err, sizeof err), AM_BACKEND);
    /* content that is prose: a refusal, and its words are not quoted */
    CHECK_EQ_INT(parse("Sure! My secret SESAME-1234 is {not json}", &ar, &r, err, sizeof err),
                 AM_BACKEND);
    CHECK_EQ_INT(r.refused, 1);
    CHECK(strstr(err, "SESAME") == NULL);
    CHECK_EQ_INT(parse("no braces at all", &ar, &r, err, sizeof err), AM_BACKEND);
    CHECK_EQ_INT(r.refused, 1);
    CHECK_EQ_INT(parse(NULL, &ar, &r, err, sizeof err), AM_BACKEND);
    CHECK_CONTAINS(err, "content");
    /* a refusal field */
    const char *ref = "{\"choices\": [{\"message\": {\"content\": null, \"refusal\": \"no "
                      "SESAME\"}}]}";
    CHECK_EQ_INT(am__llm_parse(ref, strlen(ref), &ar, &r, err, sizeof err), AM_BACKEND);
    CHECK_EQ_INT(r.refused, 1);
    CHECK(strstr(err, "SESAME") == NULL);
    /* no room for a message: still the same answer */
    CHECK_EQ_INT(parse("nope", &ar, &r, NULL, 0), AM_BACKEND);
    am__arena_free(&ar);
}

static void test_nested_garbage(void)
{
    am__arena ar;
    am__arena_init(&ar, NULL);
    am__llm_reply r;
    char err[256];
    /* far deeper than any parser's limit */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 64);
    size_t k = 0;
    k += (size_t)sprintf(deep, "{\"memories\": [");
    for (size_t i = 0; i < depth; i++) deep[k++] = '[';
    for (size_t i = 0; i < depth; i++) deep[k++] = ']';
    deep[k++] = ']';
    deep[k++] = '}';
    deep[k] = '\0';
    int rc = parse(deep, &ar, &r, err, sizeof err);
    CHECK(rc == AM_OK || rc == AM_BACKEND);
    CHECK_EQ_INT(r.n, 0);
    free(deep);
    /* garbage inside the fields of an otherwise good proposal */
    CHECK_EQ_INT(parse("{\"memories\": [{\"kind\": \"fact\", \"text\": \"ok\", \"key\": "
                       "{\"a\": [[{}]]}, \"confidence\": [0.5], \"source_event_ids\": "
                       "[[\"e1\"], {\"id\": \"e2\"}, \"e3\"]}], \"extra\": {\"x\": [1, {}]}}",
                       &ar, &r, err, sizeof err),
                 AM_OK);
    CHECK_EQ_INT(r.n, 1);
    if (r.n == 1) {
        CHECK(r.p[0].key == NULL);
        CHECK_EQ_INT(r.p[0].n_ids, 1);
    }
    /* two objects in one content: the outermost braces are not one object */
    CHECK_EQ_INT(parse("{\"memories\": []} and {\"memories\": []}", &ar, &r, err, sizeof err),
                 AM_BACKEND);
    am__arena_free(&ar);
}

int main(void)
{
    RUN(test_good);
    RUN(test_empty);
    RUN(test_missing_and_wrong_types);
    RUN(test_huge);
    RUN(test_not_json);
    RUN(test_nested_garbage);
    TEST_MAIN_END();
}
