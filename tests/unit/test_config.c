/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_config.c -- am_config through the public header: the defaults of
 * am_config_init come from the knob list, the knobs by name (am_config_set
 * / am_config_get, am_knob_*) refuse what the list does not allow and leave
 * the config unchanged, and a config of another size (a caller built
 * against another agentmem.h) is AM_MISUSE with a message naming both sizes.
 */
#include "agentmem.h"
#include "test.h"

static void test_defaults_from_the_list(void)
{
    am_config cfg;
    am_config_init(&cfg);
    CHECK_EQ_INT(cfg.struct_size, sizeof cfg);
    CHECK_EQ_INT(cfg.max_text_bytes, 32768);
    CHECK_EQ_INT(cfg.redact, AM_REDACT_ALL);
    /* a few fields as the engine reads them */
    CHECK_NEAR(cfg.rank.w_vector, 0.3, 0);
    CHECK_NEAR(cfg.rank.w_session, 0, 0);
    CHECK_EQ_INT(cfg.rank.candidates, 50);
    CHECK_EQ_INT(cfg.rank.vector_exact_max, 0);
    CHECK_EQ_INT(cfg.rank.pii_matches, 1);
    size_t n = am_knob_count();
    CHECK_EQ_INT(n, 49); /* 33, the LLM pass's 3, archived events' 1, the lifecycle's 10, expiry's 2 */
    CHECK_EQ_INT(cfg.rank.future_skew_minutes, 1440);
    CHECK_NEAR(cfg.rank.forget_below, 0.4, 0);
    CHECK_NEAR(cfg.rank.confidence_half_life_profile_days, 270, 0);
    CHECK(am_knob_info(n) == NULL);
    for (size_t i = 0; i < n; i++) {
        const am_knob *k = am_knob_info(i);
        double v = -12345;
        CHECK(k && k->name && k->doc && *k->doc);
        if (!k) continue;
        CHECK(am_knob_find(k->name) == k); /* names are unique */
        CHECK(k->min <= k->def && k->def <= k->max);
        CHECK(k->type == AM_KNOB_DOUBLE || k->type == AM_KNOB_INT);
        CHECK_EQ_INT(am_config_get(&cfg, k->name, &v), AM_OK);
        CHECK_NEAR(v, k->def, 0);
        CHECK_EQ_INT(am_knob_check(k->name, k->def, NULL, 0), AM_OK);
    }
    CHECK(am_knob_find("w_semantic") == NULL); /* never read: gone (layer fusion) */
    CHECK(am_knob_find("w_perception") == NULL);
    CHECK(am_knob_find(NULL) == NULL);
}

static void test_set_and_get(void)
{
    am_config cfg;
    am_config_init(&cfg);
    double v = 0;
    CHECK_EQ_INT(am_config_set(&cfg, "w_vector", 0.5), AM_OK);
    CHECK_NEAR(cfg.rank.w_vector, 0.5, 0);
    CHECK_EQ_INT(am_config_set(&cfg, "candidates", 70), AM_OK);
    CHECK_EQ_INT(cfg.rank.candidates, 70);
    CHECK_EQ_INT(am_config_get(&cfg, "candidates", &v), AM_OK);
    CHECK_NEAR(v, 70, 0);
    CHECK_EQ_INT(am_config_set(&cfg, "vector_exact_max", -1), AM_OK); /* the bounds are in */
    CHECK_EQ_INT(cfg.rank.vector_exact_max, -1);
    cfg.rank.w_bridge = 1.5; /* a field set directly reads back by name */
    CHECK_EQ_INT(am_config_get(&cfg, "w_bridge", &v), AM_OK);
    CHECK_NEAR(v, 1.5, 0);
}

static void test_refusals_name_the_knob(void)
{
    am_config cfg, before;
    am_config_init(&cfg);
    before = cfg;
    char msg[256];
    double v = 0;
    CHECK_EQ_INT(am_config_set(&cfg, "nope", 1), AM_INVALID);
    CHECK_EQ_INT(am_config_set(&cfg, "w_vector", 1.5), AM_INVALID); /* above max */
    CHECK_EQ_INT(am_config_set(&cfg, "w_vector", -0.1), AM_INVALID);
    CHECK_EQ_INT(am_config_set(&cfg, "w_vector", NAN), AM_INVALID);
    CHECK_EQ_INT(am_config_set(&cfg, "candidates", 2.5), AM_INVALID); /* int knob */
    CHECK(memcmp(&cfg, &before, sizeof cfg) == 0);
    CHECK_EQ_INT(am_config_get(&cfg, "nope", &v), AM_INVALID);
    CHECK_EQ_INT(am_knob_check("nope", 1, msg, sizeof msg), AM_INVALID);
    CHECK_CONTAINS(msg, "\"nope\"");
    CHECK_EQ_INT(am_knob_check("w_vector", 1.5, msg, sizeof msg), AM_INVALID);
    CHECK_CONTAINS(msg, "w_vector");
    CHECK_CONTAINS(msg, "[0, 1]");
    CHECK_EQ_INT(am_knob_check("candidates", 2.5, msg, sizeof msg), AM_INVALID);
    CHECK_CONTAINS(msg, "candidates: 2.5 is not an integer");
    CHECK_EQ_INT(am_knob_check("candidates", 2.5, msg, 8), AM_INVALID); /* truncated */
    CHECK_EQ_INT(strlen(msg), 7);
    CHECK_EQ_INT(am_config_set(NULL, "w_vector", 0.3), AM_MISUSE);
    CHECK_EQ_INT(am_config_set(&cfg, NULL, 0.3), AM_MISUSE);
    CHECK_EQ_INT(am_config_get(&cfg, "w_vector", NULL), AM_MISUSE);
}

static void test_another_layout_is_misuse(void)
{
    am_config cfg;
    am_config_init(&cfg);
    cfg.path = ":memory:";
    am_db *db = NULL;
    char *err = NULL;
    CHECK_EQ_INT(am_open(&cfg, &db, &err), AM_OK);
    am_close(db);
    am_free(err);
    /* a caller whose am_config is 8 bytes shorter: only struct_size is set */
    am_config other;
    memset(&other, 0x5a, sizeof other);
    am_config_init_sized(&other, sizeof other - 8);
    CHECK_EQ_INT(other.struct_size, sizeof other - 8);
    CHECK_EQ_INT(other.busy_timeout_ms, 0x5a5a5a5a);
    other.path = ":memory:";
    db = NULL;
    CHECK_EQ_INT(am_open(&other, &db, &err), AM_MISUSE);
    CHECK(db == NULL);
    CHECK(err != NULL);
    char want[128];
    snprintf(want, sizeof want, "%zu bytes in this library, struct_size says %zu",
             sizeof other, sizeof other - 8);
    CHECK_CONTAINS(err, want);
    am_free(err);
    CHECK_EQ_INT(am_config_set(&other, "w_vector", 0.3), AM_MISUSE);
    double v;
    CHECK_EQ_INT(am_config_get(&other, "w_vector", &v), AM_MISUSE);
    /* a config never initialised (zeroed) */
    am_config zero;
    memset(&zero, 0, sizeof zero);
    zero.path = ":memory:";
    CHECK_EQ_INT(am_open(&zero, &db, NULL), AM_MISUSE);
    am_config_init_sized(NULL, sizeof cfg); /* no-op */
}

int main(void)
{
    RUN(test_defaults_from_the_list);
    RUN(test_set_and_get);
    RUN(test_refusals_name_the_knob);
    RUN(test_another_layout_is_misuse);
    TEST_MAIN_END();
}
