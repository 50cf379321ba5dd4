/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mcp_tools.c -- the memory tools MCP exposes, each a row of one table:
 * its arguments (name, type, required, allowed values, meaning) make both
 * the JSON Schema tools/list sends and the check tools/call runs, so the
 * schema a host shows the model and what the server accepts cannot drift
 * apart.  The check is strict: an argument of another type, an unknown
 * argument, a missing required one, a value outside its choices is refused
 * naming the field; `user` is refused outright, the user being the
 * handle's (configuration or token), never the model's choice.
 *
 * Errors (MCP 2025-11-25 and 2026-07-28 server/tools "Error Handling"):
 * bad arguments and refusals of the engine (invalid input, not found,
 * denied, busy, too big) are tool results with isError, so the model can
 * correct itself; an unknown tool or params that are not a CallToolRequest
 * are JSON-RPC errors (-32602), a failure of the store (-32603).  Every
 * result carries, as structuredContent, the object the CLI prints with
 * --json (tools/common/shapes.h; list_memories: {"memories": the CLI's
 * array}, as 2025-11-25 wants an object) and a text block for the model:
 * recall's is the memory block, list_memories' a line per item,
 * get_profile's the card, the others' the serialized JSON.  Revisions
 * before 2025-06-18 know no structuredContent, title or outputSchema,
 * 2024-11-05 no annotations: they are left out for them
 * (am__mcp_result_for, tool_def).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_int.h"
#include "filters.h"
#include "messages.h"
#include "shapes.h"

/* ARG_COUNT: an integer from 1 to INT_MAX (a tool checks its own upper
 * bound, naming the argument) */
enum { ARG_STRING, ARG_BOOL, ARG_OBJECT, ARG_COUNT };

typedef struct mcp_arg {
    const char *name;
    int type;
    int required;
    const char *const *choices; /* NULL-terminated, or NULL: any string */
    const char *doc;
} mcp_arg;

#define MAX_ARGS 6

/* An argument's value, by its index in the tool's table (NULL: absent). */
typedef struct mcp_vals {
    const json_t *v[MAX_ARGS];
} mcp_vals;

/* A tool's work: a CallToolResult, or NULL with *fault set (internal). */
typedef json_t *(*mcp_run_fn)(am_mcp *m, const mcp_vals *a, mcp_fault *fault);

typedef struct mcp_tool {
    const char *name, *title, *doc;
    int read_only, destructive, idempotent;
    mcp_arg args[MAX_ARGS];
    mcp_run_fn run;
} mcp_tool;

void am__mcp_fmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    if (n < 0) {
        buf[0] = '\0';
        return;
    }
    if ((size_t)n < cap) return;
    /* cut at cap - 1: drop the last character when it lost bytes */
    size_t end = cap - 1, start = end;
    while (start > 0 && ((unsigned char)buf[start - 1] & 0xC0) == 0x80) start--;
    if (start == 0) return;
    unsigned char lead = (unsigned char)buf[start - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (end - (start - 1) < need) buf[start - 1] = '\0';
}

const char *am__mcp_str(const json_t *v)
{
    if (!json_is_string(v)) return NULL;
    const char *s = json_string_value(v);
    return strlen(s) == json_string_length(v) ? s : NULL;
}

static const char *arg_str(const mcp_vals *a, int i)
{
    return a->v[i] ? json_string_value(a->v[i]) : NULL;
}

/* ------------------------------------------------------------ results */

/* A result of text (copied) and structured (stolen; may be NULL). */
static json_t *result_new(const char *text, json_t *structured, int is_error)
{
    json_t *r = json_pack("{s:[{s:s, s:s}]}", "content", "type", "text", "text", text);
    if (!r) {
        json_decref(structured);
        return NULL;
    }
    if (structured && json_object_set_new(r, "structuredContent", structured) != 0) {
        json_decref(r);
        return NULL;
    }
    if (is_error && json_object_set_new(r, "isError", json_true()) != 0) {
        json_decref(r);
        return NULL;
    }
    return r;
}

/* A result whose text is v serialized (v stolen; NULL: out of memory). */
static json_t *result_json(json_t *v, mcp_fault *fault)
{
    char *text = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) : NULL;
    json_t *r = text ? result_new(text, v, 0) : NULL;
    if (!text) json_decref(v);
    free(text);
    if (!r) {
        fault->code = MCP_INTERNAL_ERROR;
        am__mcp_fmt(fault->message, sizeof fault->message, "out of memory making the result");
    }
    return r;
}

/* A tool error the model can act on: {"error":{code, message, field}}. */
static json_t *result_error(const char *code, const char *message, const char *field,
                            mcp_fault *fault)
{
    json_t *e = json_pack("{s:{s:s, s:s, s:o}}", "error", "code", code, "message", message,
                          "field", am_shape_str(field));
    json_t *r = e ? result_new(message, e, 1) : NULL;
    if (!r) {
        fault->code = MCP_INTERNAL_ERROR;
        am__mcp_fmt(fault->message, sizeof fault->message, "out of memory making the result");
    }
    return r;
}

/* The engine refused or failed (rc != AM_OK): refusals are results with
 * isError; a failure of the store is a protocol error (NULL). */
static json_t *result_engine(am_mcp *m, int rc, mcp_fault *fault)
{
    static const struct {
        int rc;
        const char *code;
    } refusals[] = {
        {AM_INVALID, "invalid"}, {AM_NOTFOUND, "not_found"}, {AM_DENIED, "denied"},
        {AM_BUSY, "busy"},       {AM_TOOBIG, "too_big"},
    };
    char msg[512];
    am__mcp_fmt(msg, sizeof msg, "%s (%s)", am_errmsg(m->db), am_errstr(rc));
    for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++)
        if (refusals[i].rc == rc) return result_error(refusals[i].code, msg, NULL, fault);
    fault->code = MCP_INTERNAL_ERROR;
    am__mcp_fmt(fault->message, sizeof fault->message, "%s", msg);
    return NULL;
}

/* ------------------------------------------------------------ the tools */

static const char *user_agent(const am_mcp *m)
{
    return m->agent[0] ? m->agent : NULL;
}

static const char *user_role(const am_mcp *m)
{
    return m->role[0] ? m->role : NULL;
}

static const char *const message_roles[] = {"user", "assistant", "tool", "system", NULL};

static json_t *run_remember(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    am_event ev;
    memset(&ev, 0, sizeof ev);
    ev.user_id = m->user;
    ev.agent_id = user_agent(m);
    ev.text = arg_str(a, 0);
    ev.session_id = arg_str(a, 1);
    ev.task_id = arg_str(a, 2);
    ev.occurred_at = arg_str(a, 3);
    /* who said it (a chat message's role): assistant -> source agent */
    if (arg_str(a, 4)) ev.source = am_message_source(arg_str(a, 4));
    char *meta = a->v[5] ? json_dumps(a->v[5], JSON_COMPACT) : NULL;
    ev.metadata_json = meta;
    am_add_info info;
    int rc = a->v[5] && !meta ? AM_NOMEM : am_add_event(m->db, &ev, &info);
    free(meta);
    if (rc) return result_engine(m, rc, fault);
    return result_json(am_shape_add(&info), fault);
}

static json_t *run_recall(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    am_query q;
    memset(&q, 0, sizeof q);
    q.user_id = m->user;
    q.agent_id = user_agent(m);
    q.role = user_role(m);
    q.text = arg_str(a, 0);
    q.task_id = arg_str(a, 1);
    q.as_of = arg_str(a, 2);
    am_json_filter jf;
    if (a->v[3]) {
        if (am_json_filter_read(a->v[3], "filters", &jf)) {
            am_json_filter_free(&jf);
            return result_error("invalid_params", jf.why, jf.field, fault);
        }
        q.filter = &jf.f;
    }
    am_recall_result *r;
    int rc = am_recall(m->db, &q, &r);
    if (a->v[3]) am_json_filter_free(&jf);
    if (rc) return result_engine(m, rc, fault);
    const char *text = !r->need_memory ? "(no memory needed for this turn)"
                       : r->block[0]   ? r->block
                                       : "(nothing remembered)";
    json_t *structured = am_shape_parsed(r->json);
    json_t *res = structured ? result_new(text, structured, 0) : NULL;
    am_recall_free(r);
    if (!res) {
        fault->code = MCP_INTERNAL_ERROR;
        am__mcp_fmt(fault->message, sizeof fault->message, "recall: cannot make the result");
    }
    return res;
}

static json_t *run_task_state(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    am_task *t;
    int rc = am_task_get_as(m->db, m->user, arg_str(a, 0), user_agent(m), user_role(m), &t);
    if (rc) return result_engine(m, rc, fault);
    json_t *v = am_shape_task(t);
    am_task_free(t);
    return result_json(v, fault);
}

/* Append s to *buf (of *len bytes, *cap allocated); 0, or -1 when out of
 * memory (*buf freed, NULL). */
static int text_add(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*buf && *len + n + 1 > *cap) {
        size_t want = (*len + n + 1) * 2;
        char *p = realloc(*buf, want);
        if (!p) {
            free(*buf);
            *buf = NULL;
            return -1;
        }
        *buf = p;
        *cap = want;
    }
    if (!*buf) return -1;
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return 0;
}

/* A stored string of item, as one inert line (am_text_plain), or NULL. */
static char *item_plain(const json_t *item, const char *field)
{
    const char *v = am__mcp_str(json_object_get(item, field));
    return v ? am_text_plain(v) : NULL;
}

/* The listing as a model reads it, one line per item:
 *   - preference: 以后周报都按三段写 (key report.structure, id 01J...)
 * with the version's state and status when it is not current and active
 * (all: closed versions), "(no memories)" for none.  Texts go through
 * am_text_plain: a stored text cannot add a line.  Owned; NULL: out of
 * memory. */
static char *memories_text(const json_t *items)
{
    size_t cap = 256, len = 0;
    char *buf = malloc(cap);
    if (buf) buf[0] = '\0';
    if (!json_array_size(items)) {
        text_add(&buf, &len, &cap, "(no memories)");
        return buf;
    }
    size_t i;
    const json_t *it;
    json_array_foreach(items, i, it) {
        static const char *const fields[] = {"kind", "text", "key", "lineage_id",
                                             "version_state", "status"};
        char *f[6];
        for (size_t k = 0; k < 6; k++) f[k] = item_plain(it, fields[k]);
        const char *kind = f[0] ? f[0] : "memory", *state = f[4], *status = f[5];
        text_add(&buf, &len, &cap, i ? "\n- " : "- ");
        text_add(&buf, &len, &cap, kind);
        text_add(&buf, &len, &cap, ": ");
        text_add(&buf, &len, &cap, f[1] ? f[1] : "");
        text_add(&buf, &len, &cap, " (");
        if (f[2]) {
            text_add(&buf, &len, &cap, "key ");
            text_add(&buf, &len, &cap, f[2]);
            text_add(&buf, &len, &cap, ", ");
        }
        text_add(&buf, &len, &cap, "id ");
        text_add(&buf, &len, &cap, f[3] ? f[3] : "?");
        if (state && strcmp(state, "current") != 0) {
            text_add(&buf, &len, &cap, ", ");
            text_add(&buf, &len, &cap, state);
        }
        if (status && strcmp(status, "active") != 0) {
            text_add(&buf, &len, &cap, ", ");
            text_add(&buf, &len, &cap, status);
        }
        text_add(&buf, &len, &cap, ")");
        for (size_t k = 0; k < 6; k++) am_free(f[k]);
    }
    return buf;
}

static json_t *run_list_memories(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    int all = a->v[0] && json_is_true(a->v[0]);
    am_memory_list *l;
    am_json_filter jf;
    am_list_opts o;
    memset(&o, 0, sizeof o);
    o.which = all ? AM_LIST_ALL : AM_LIST_ACTIVE;
    o.as_of = arg_str(a, 1);
    o.agent_id = user_agent(m);
    o.role = user_role(m);
    if (a->v[2]) {
        if (am_json_filter_read(a->v[2], "filters", &jf)) {
            am_json_filter_free(&jf);
            return result_error("invalid_params", jf.why, jf.field, fault);
        }
        o.filter = &jf.f;
    }
    int rc = am_memories_list(m->db, m->user, &o, &l);
    if (a->v[2]) am_json_filter_free(&jf);
    if (rc) return result_engine(m, rc, fault);
    /* an object around the CLI's array: 2025-11-25 wants structuredContent
     * to be an object; the text is a line per item for the model */
    json_t *items = am_shape_parsed(l->json);
    am_memory_list_free(l);
    char *text = items ? memories_text(items) : NULL;
    json_t *r = text ? result_new(text, json_pack("{s:o}", "memories", items), 0) : NULL;
    if (!text) json_decref(items);
    free(text);
    if (!r) {
        fault->code = MCP_INTERNAL_ERROR;
        am__mcp_fmt(fault->message, sizeof fault->message, "out of memory making the result");
    }
    return r;
}

static const char *const feedback_actions[] = {"confirm", "reject", "correct", NULL};

static json_t *run_feedback(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    const char *id = arg_str(a, 0), *action = arg_str(a, 1), *text = arg_str(a, 2);
    int code = strcmp(action, "confirm") == 0 ? AM_FEEDBACK_CONFIRM
               : strcmp(action, "reject") == 0 ? AM_FEEDBACK_REJECT
                                               : AM_FEEDBACK_CORRECT;
    if (code == AM_FEEDBACK_CORRECT && !text)
        return result_error("invalid_params", "feedback: text is required with action correct",
                            "text", fault);
    int rc = am_feedback_as(m->db, m->user, id, code, text, user_agent(m), user_role(m));
    if (rc) return result_engine(m, rc, fault);
    return result_json(json_pack("{s:b, s:s, s:s}", "ok", 1, "id", id, "action", action), fault);
}

static const char *const forget_levels[] = {"event", "session", "task", "user", NULL};

static json_t *run_forget(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    const char *level = arg_str(a, 0), *id = arg_str(a, 1);
    int code = strcmp(level, "event") == 0     ? AM_FORGET_EVENT
               : strcmp(level, "session") == 0 ? AM_FORGET_SESSION
               : strcmp(level, "task") == 0    ? AM_FORGET_TASK
                                               : AM_FORGET_USER;
    if (code != AM_FORGET_USER && !id)
        return result_error("invalid_params", "forget: id is required unless level is user", "id",
                            fault);
    if (code == AM_FORGET_USER && id)
        return result_error("invalid_params",
                            "forget: id is not taken with level user (the user is the server's)",
                            "id", fault);
    am_forget_info info;
    int rc = am_forget_as(m->db, m->user, code, id, user_agent(m), user_role(m), &info);
    if (rc) return result_engine(m, rc, fault);
    return result_json(am_shape_forget(&info), fault);
}

static json_t *run_update_memory(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    am_memory_item *it;
    int rc = am_memory_update_as(m->db, m->user, arg_str(a, 0), arg_str(a, 1), user_agent(m),
                                 user_role(m), &it);
    if (rc) return result_engine(m, rc, fault);
    /* {"memory": the new current version}, as PATCH /v1/memories/{id} */
    json_t *all = am_shape_parsed(it->json), *cur = all ? json_object_get(all, "memory") : NULL;
    json_t *v = cur ? json_pack("{s:O}", "memory", cur) : NULL;
    json_decref(all);
    am_memory_item_free(it);
    return result_json(v, fault);
}

static json_t *run_add_memory(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    am_memory_input in;
    memset(&in, 0, sizeof in);
    in.user_id = m->user;
    in.agent_id = user_agent(m);
    in.role = user_role(m);
    in.text = arg_str(a, 0);
    in.kind = arg_str(a, 1);
    in.key = arg_str(a, 2);
    in.scope = arg_str(a, 3);
    char *meta = a->v[4] ? json_dumps(a->v[4], JSON_COMPACT) : NULL;
    in.metadata_json = meta;
    in.expires_at = arg_str(a, 5);
    am_memory_item *it = NULL;
    int rc = a->v[4] && !meta ? AM_NOMEM : am_memory_add(m->db, &in, &it);
    free(meta);
    if (rc) return result_engine(m, rc, fault);
    /* {"memory": its current version}, as POST /v1/memories */
    json_t *all = am_shape_parsed(it->json), *cur = all ? json_object_get(all, "memory") : NULL;
    json_t *v = cur ? json_pack("{s:O}", "memory", cur) : NULL;
    json_decref(all);
    am_memory_item_free(it);
    return result_json(v, fault);
}

static json_t *run_delete_memory(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    long n = 0;
    int rc = am_memory_delete_as(m->db, m->user, arg_str(a, 0), user_agent(m), user_role(m), &n);
    if (rc) return result_engine(m, rc, fault);
    return result_json(json_pack("{s:I}", "deleted", (json_int_t)n), fault);
}

static json_t *run_get_profile(am_mcp *m, const mcp_vals *a, mcp_fault *fault)
{
    am_profile_query q;
    memset(&q, 0, sizeof q);
    q.user_id = m->user;
    q.agent_id = user_agent(m);
    q.role = user_role(m);
    q.budget_tokens = a->v[0] ? (int)json_integer_value(a->v[0]) : 0;
    if (q.budget_tokens > AM_PROFILE_BUDGET_MAX) {
        char msg[128];
        am__mcp_fmt(msg, sizeof msg, "get_profile: budget: expected an integer from 1 to %d",
                    AM_PROFILE_BUDGET_MAX);
        return result_error("invalid_params", msg, "budget", fault);
    }
    am_profile_card *card;
    int rc = am_profile(m->db, &q, &card);
    if (rc) return result_engine(m, rc, fault);
    /* the text is the card itself, ready for a system prompt */
    json_t *structured = am_shape_parsed(card->json);
    json_t *r = structured ? result_new(card->text[0] ? card->text : "(no lasting memories yet)",
                                        structured, 0)
                           : NULL;
    am_profile_free(card);
    if (!r) {
        fault->code = MCP_INTERNAL_ERROR;
        am__mcp_fmt(fault->message, sizeof fault->message, "profile: cannot make the result");
    }
    return r;
}

#define ISO_DOC "ISO 8601 with a zone, e.g. 2026-03-02T09:00:00+08:00"

#define FILTERS_DOC                                                                          \
    "Only these: {\"kind\": a kind or a list, \"scope\": ..., \"metadata\": {key: a value or a " \
    "list of values}, \"from\"/\"to\": ISO 8601 times, \"query\": words the memory holds}."

static const mcp_tool tools[] = {
    {"remember", "Remember",
     "Store what the user (or the conversation) said, as an event of the user's history: the "
     "engine keeps explicit lasting statements (preferences, constraints, facts) as versioned "
     "memories and a task's state. Call it with each user turn worth keeping.",
     0, 0, 0,
     {{"text", ARG_STRING, 1, NULL, "What was said, verbatim (UTF-8, up to 32 KB)."},
      {"session", ARG_STRING, 0, NULL, "The conversation's id."},
      {"task", ARG_STRING, 0, NULL, "The task the turn belongs to, when known."},
      {"at", ARG_STRING, 0, NULL, "When it was said, " ISO_DOC "; default now."},
      {"role", ARG_STRING, 0, message_roles,
       "Who said it, as a chat message's role: user (default), assistant, tool or system. "
       "Only what the user says becomes a lasting memory."},
      {"metadata", ARG_OBJECT, 0, NULL,
       "The application's metadata of the turn: a flat object of strings, numbers and "
       "booleans (at most 32 keys); the memories it gives carry it."}},
     run_remember},
    {"recall", "Recall",
     "What to keep in mind for the user's turn: the memory block (the user's standing "
     "preferences and constraints, the task's state, relevant past events). Call it before "
     "answering.",
     1, 0, 0,
     {{"query", ARG_STRING, 1, NULL, "The user's turn, verbatim."},
      {"task", ARG_STRING, 0, NULL, "The task, when known."},
      {"as_of", ARG_STRING, 0, NULL, "Answer as things stood then, " ISO_DOC "."},
      {"filters", ARG_OBJECT, 0, NULL, FILTERS_DOC}},
     run_recall},
    {"task_state", "Task state",
     "A task's state: stage, status, artifacts, decisions pending, one-off notes, history size.",
     1, 0, 1,
     {{"task", ARG_STRING, 1, NULL, "The task's id."}},
     run_task_state},
    {"list_memories", "List memories",
     "The user's memory items (current ones, or every version with all).",
     1, 0, 1,
     {{"all", ARG_BOOL, 0, NULL, "Every version, closed ones included."},
      {"as_of", ARG_STRING, 0, NULL, "The items as they stood then, " ISO_DOC "."},
      {"filters", ARG_OBJECT, 0, NULL, FILTERS_DOC}},
     run_list_memories},
    {"feedback", "Feedback on a memory",
     "The user judges a memory item: confirm it, reject it (it is invalidated) or correct it "
     "(text is the corrected statement). Every outcome is a new version.",
     0, 0, 0,
     {{"id", ARG_STRING, 1, NULL, "The memory item's id (a version id or its lineage id)."},
      {"action", ARG_STRING, 1, feedback_actions, "confirm, reject or correct."},
      {"text", ARG_STRING, 0, NULL, "The corrected statement (required with correct)."}},
     run_feedback},
    {"forget", "Forget",
     "Forget an event, a session, a task or everything about the user: the data leaves every "
     "table and index; memories derived only from it go too. Ask the user first.",
     0, 1, 1,
     {{"level", ARG_STRING, 1, forget_levels, "event, session, task or user."},
      {"id", ARG_STRING, 0, NULL, "The event, session or task id (not with user)."}},
     run_forget},
    {"update_memory", "Update a memory",
     "Correct one memory item: text becomes its new current version (the old one is kept as a "
     "past version). Use it when the user says a remembered fact or preference is wrong.",
     0, 0, 0,
     {{"id", ARG_STRING, 1, NULL, "The memory item's id (its lineage id or any version's id)."},
      {"text", ARG_STRING, 1, NULL, "The corrected statement."}},
     run_update_memory},
    {"delete_memory", "Delete a memory",
     "Delete one memory item: every version of it leaves every table, index and cache (the "
     "conversation it came from stays). Ask the user first.",
     0, 1, 1,
     {{"id", ARG_STRING, 1, NULL, "The memory item's id (its lineage id or any version's id)."}},
     run_delete_memory},
    {"get_profile", "User profile",
     "The user's profile card: their current lasting preferences, constraints and facts, "
     "grouped by topic, each once, within a token budget, in the user's language. Put it in "
     "the system prompt at the start of a conversation.",
     1, 0, 1,
     {{"budget", ARG_COUNT, 0, NULL,
       "The card's size at most, in tokens (default 400, at most 100000); whole items are "
       "left out to fit."}},
     run_get_profile},
    {"add_memory", "Add a memory",
     "State one memory directly (not an event): a new value of the same key supersedes the "
     "current one, the same text reinforces it. expires_at bounds it: after that it leaves "
     "recall and the current listing, its history stays.",
     0, 0, 0,
     {{"text", ARG_STRING, 1, NULL, "The statement, one short sentence."},
      {"kind", ARG_STRING, 0, NULL,
       "preference, constraint, profile, fact, pattern, task_conclusion, rule or temp; default "
       "the engine's reading."},
      {"key", ARG_STRING, 0, NULL, "The attribute (\"diet.coffee\"); default the engine's reading."},
      {"scope", ARG_STRING, 0, NULL, "global (default), domain:X, task:T or role:R."},
      {"metadata", ARG_OBJECT, 0, NULL,
       "The application's metadata: a flat object of strings, numbers and booleans."},
      {"expires_at", ARG_STRING, 0, NULL,
       "When it stops being current, " ISO_DOC ", after now; default an end its text names "
       "(\"this month\", \"这周\"), else its kind's TTL, else never."}},
     run_add_memory},
};

#define N_TOOLS (sizeof tools / sizeof *tools)

static size_t n_args(const mcp_tool *t)
{
    size_t n = 0;
    while (n < MAX_ARGS && t->args[n].name) n++;
    return n;
}

static json_t *arg_schema(const mcp_arg *a)
{
    json_t *s = json_pack("{s:s, s:s}", "type",
                          a->type == ARG_BOOL     ? "boolean"
                          : a->type == ARG_OBJECT ? "object"
                          : a->type == ARG_COUNT  ? "integer"
                                                  : "string",
                          "description", a->doc);
    if (s && a->type == ARG_COUNT && json_object_set_new(s, "minimum", json_integer(1)) != 0) {
        json_decref(s);
        return NULL;
    }
    if (!s || !a->choices) return s;
    json_t *e = json_array();
    for (size_t i = 0; e && a->choices[i]; i++)
        if (json_array_append_new(e, json_string(a->choices[i])) != 0) {
            json_decref(e);
            e = NULL;
        }
    if (!e || json_object_set_new(s, "enum", e) != 0) {
        json_decref(s);
        return NULL;
    }
    return s;
}

/* The schema of a tool's structuredContent (outputSchema, 2025-06-18 on),
 * or NULL when the tool declares none.  A refusal (isError) carries
 * {"error": ...} instead, which the schema admits: clients check a
 * result against it whatever its isError. */
static json_t *output_schema(const mcp_tool *t)
{
    if (strcmp(t->name, "list_memories") != 0) return NULL;
    return json_pack(
        "{s:s, s:{s:{s:s, s:s, s:{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:[s,s]}, s:{s:s}, "
        "s:{s:s}, s:{s:s}, s:{s:s}}, s:[s,s,s,s]}}, s:{s:s}}, s:[{s:[s]}, {s:[s]}]}",
        "type", "object", "properties", "memories", "type", "array", "description",
        "The items, as `agentmem memories --json` prints them", "items", "type", "object",
        "properties", "id", "type", "string", "lineage_id", "type", "string", "kind", "type",
        "string", "key", "type", "string", "null", "text", "type", "string", "scope", "type",
        "string", "status", "type", "string", "version_state", "type", "string", "required",
        "id", "lineage_id", "kind", "text", "error", "type", "object", "anyOf", "required",
        "memories", "required", "error");
}

static json_t *tool_def(const mcp_tool *t, int rev)
{
    json_t *props = json_object(), *req = json_array();
    for (size_t i = 0; props && req && i < n_args(t); i++) {
        json_t *s = arg_schema(&t->args[i]);
        if (!s || json_object_set_new(props, t->args[i].name, s) != 0 ||
            (t->args[i].required && json_array_append_new(req, json_string(t->args[i].name)))) {
            json_decref(props);
            props = NULL;
        }
    }
    /* "required" only when it names something (draft-04 wants minItems 1) */
    json_t *d = props && req
                    ? json_pack("{s:s, s:s, s:s, s:{s:s, s:O, s:O*, s:b}, s:{s:b, s:b, s:b, s:b}}",
                                "name", t->name, "title", t->title, "description", t->doc,
                                "inputSchema", "type", "object", "properties", props, "required",
                                json_array_size(req) ? req : NULL, "additionalProperties", 0,
                                "annotations", "readOnlyHint", t->read_only, "destructiveHint",
                                t->destructive, "idempotentHint", t->idempotent, "openWorldHint",
                                0)
                    : NULL;
    json_decref(props);
    json_decref(req);
    /* what each revision knows of a tool: annotations from 2025-03-26,
     * title and outputSchema from 2025-06-18 */
    if (d && rev < MCP_REV_2025_03_26) json_object_del(d, "annotations");
    if (d && rev < MCP_REV_2025_06_18) json_object_del(d, "title");
    json_t *out = d && rev >= MCP_REV_2025_06_18 ? output_schema(t) : NULL;
    if (out && json_object_set_new(d, "outputSchema", out) != 0) {
        json_decref(d);
        d = NULL;
    }
    return d;
}

json_t *am__mcp_tools_list(int rev)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < N_TOOLS; i++)
        if (json_array_append_new(list, tool_def(&tools[i], rev)) != 0) {
            json_decref(list);
            list = NULL;
        }
    return list;
}

/* Check args (an object, or NULL) against t's table into *out.  0 when
 * they pass; else 1 with *refusal the isError result (NULL, and *fault
 * set, when out of memory). */
static int check_args(const mcp_tool *t, json_t *args, mcp_vals *out, json_t **refusal,
                      mcp_fault *fault)
{
    char msg[512];
    const char *key;
    size_t key_len;
    json_t *v;
    memset(out, 0, sizeof *out);
    json_object_keylen_foreach(args, key, key_len, v) {
        size_t i, n = n_args(t);
        for (i = 0; i < n; i++)
            if (strcmp(key, t->args[i].name) == 0) break;
        if (strcmp(key, "user") == 0 || strcmp(key, "user_id") == 0) {
            am__mcp_fmt(msg, sizeof msg,
                        "%s: %s: refused: the user is fixed by the server (its --user or the "
                        "token), never a tool argument",
                        t->name, key);
            *refusal = result_error("invalid_params", msg, key, fault);
            return 1;
        }
        if (i == n || key_len != strlen(key)) {
            am__mcp_fmt(msg, sizeof msg, "%s: unknown argument \"%s\" (arguments: see tools/list)",
                        t->name, key_len != strlen(key) ? "(a name with a NUL character)" : key);
            *refusal = result_error("invalid_params", msg, key, fault);
            return 1;
        }
        const mcp_arg *a = &t->args[i];
        int ok = a->type == ARG_BOOL     ? json_is_boolean(v)
                 : a->type == ARG_OBJECT ? json_is_object(v)
                 : a->type == ARG_COUNT  ? json_is_integer(v)
                                         : am__mcp_str(v) != NULL;
        if (!ok) {
            am__mcp_fmt(msg, sizeof msg, "%s: %s: expected %s", t->name, a->name,
                        a->type == ARG_BOOL     ? "true or false"
                        : a->type == ARG_OBJECT ? "an object"
                        : a->type == ARG_COUNT  ? "an integer"
                        : json_is_string(v)     ? "a string without NUL characters"
                                                : "a string");
            *refusal = result_error("invalid_params", msg, a->name, fault);
            return 1;
        }
        if (a->type == ARG_COUNT &&
            (json_integer_value(v) < 1 || json_integer_value(v) > INT_MAX)) {
            am__mcp_fmt(msg, sizeof msg, "%s: %s: expected an integer from 1", t->name, a->name);
            *refusal = result_error("invalid_params", msg, a->name, fault);
            return 1;
        }
        if (a->choices) {
            size_t c = 0;
            while (a->choices[c] && strcmp(a->choices[c], json_string_value(v)) != 0) c++;
            if (!a->choices[c]) {
                am__mcp_fmt(msg, sizeof msg, "%s: %s: expected one of the values of its enum",
                            t->name, a->name);
                *refusal = result_error("invalid_params", msg, a->name, fault);
                return 1;
            }
        }
        out->v[i] = v;
    }
    for (size_t i = 0; i < n_args(t); i++)
        if (t->args[i].required && !out->v[i]) {
            am__mcp_fmt(msg, sizeof msg, "%s: %s is required", t->name, t->args[i].name);
            *refusal = result_error("invalid_params", msg, t->args[i].name, fault);
            return 1;
        }
    return 0;
}

json_t *am__mcp_tool_call(am_mcp *m, json_t *params, mcp_fault *fault)
{
    json_t *name_v = json_object_get(params, "name"), *args = json_object_get(params, "arguments");
    const char *name = am__mcp_str(name_v);
    if (!name) {
        fault->code = MCP_INVALID_PARAMS;
        am__mcp_fmt(fault->message, sizeof fault->message,
                    "tools/call: params.name (the tool's name, a string) is required");
        return NULL;
    }
    size_t k;
    for (k = 0; k < N_TOOLS; k++)
        if (strcmp(tools[k].name, name) == 0) break;
    if (k == N_TOOLS) {
        fault->code = MCP_INVALID_PARAMS;
        char shown[104];
        am__mcp_fmt(shown, sizeof shown, "%s", name);
        am__mcp_fmt(fault->message, sizeof fault->message, "Unknown tool: %s", shown);
        return NULL;
    }
    if (args && !json_is_object(args) && !json_is_null(args)) {
        fault->code = MCP_INVALID_PARAMS;
        am__mcp_fmt(fault->message, sizeof fault->message,
                    "tools/call: params.arguments must be an object");
        return NULL;
    }
    mcp_vals vals;
    json_t *refusal = NULL;
    if (check_args(&tools[k], json_is_object(args) ? args : NULL, &vals, &refusal, fault))
        return refusal;
    return tools[k].run(m, &vals, fault);
}

json_t *am__mcp_result_for(json_t *r, int rev)
{
    if (r && rev < MCP_REV_2025_06_18) json_object_del(r, "structuredContent");
    return r;
}
