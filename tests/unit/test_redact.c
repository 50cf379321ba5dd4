/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_redact.c -- src/text/redact.c: PII placeholders with a
 * separate mapping, secrets dropped without a trace, and the false
 * positives a memory engine must not make (amounts, dates, order numbers).
 *
 * Every ID and card number here is generated: IDs carry birth dates in
 * 2080-2099 (no living person), check characters are computed here with a
 * formula independent of the one under test.
 */
#include "test.h"

#include "text/redact.h"

/* ---------------------------------------------------------------- helpers */

static am__redact_result R;
static am__redact_policy P;

static int contains(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    if (m == 0 || m > n) return 0;
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(hay + i, needle, m) == 0) return 1;
    return 0;
}

/* The invariants every result must keep: no original survives in the text,
 * secrets carry no original, and redacting again changes nothing. */
static void check_invariants(const am__redact_result *r)
{
    int secrets = 0;
    for (size_t i = 0; i < r->n; i++) {
        const am__redaction *it = &r->items[i];
        if (it->type == AM_SECRET) {
            secrets++;
            CHECK(it->original == NULL);
            CHECK_EQ_STR(it->placeholder, "[SECRET]");
        } else {
            CHECK(it->original != NULL);
            if (it->original && i < 200) /* (the big inputs have 20k items) */
                CHECK(!contains(r->text, r->len, it->original));
        }
    }
    CHECK_EQ_INT(secrets, r->secrets);
    am__redact_result again;
    CHECK_EQ_INT(am__redact(NULL, r->text, r->len, &P, &again), AM_OK);
    CHECK_EQ_INT(again.len, r->len);
    CHECK(again.text && memcmp(again.text, r->text, r->len) == 0);
    CHECK_EQ_INT(again.n, 0);
    am__redact_result_free(NULL, &again);
}

static const char *redact_n(const char *s, size_t n)
{
    am__redact_result_free(NULL, &R);
    int rc = am__redact(NULL, s, n, &P, &R);
    CHECK_EQ_INT(rc, AM_OK);
    if (rc == AM_OK) check_invariants(&R);
    return R.text ? R.text : "(null)";
}

static const char *redact(const char *s) { return redact_n(s, strlen(s)); }

static const char *orig_of(const char *placeholder)
{
    for (size_t i = 0; i < R.n; i++)
        if (strcmp(R.items[i].placeholder, placeholder) == 0) return R.items[i].original;
    return NULL;
}

static size_t count_type(int type)
{
    size_t c = 0;
    for (size_t i = 0; i < R.n; i++) c += R.items[i].type == type;
    return c;
}

/* The input comes back unchanged and nothing is reported. */
#define CHECK_UNCHANGED(s)                                                    \
    do {                                                                      \
        CHECK_EQ_STR(redact(s), (s));                                         \
        CHECK_EQ_INT(R.n, 0);                                                 \
    } while (0)

/* Check digit by the textbook Luhn procedure (payload without the check). */
static char luhn_check_digit(const char *payload)
{
    size_t n = strlen(payload);
    int sum = 0;
    for (size_t i = 0; i < n; i++) {
        int d = payload[n - 1 - i] - '0';
        if (i % 2 == 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
        sum += d;
    }
    return (char)('0' + (10 - sum % 10) % 10);
}

/* out = payload + its Luhn check digit. */
static char *luhn_make(char *out, const char *payload)
{
    size_t n = strlen(payload);
    memcpy(out, payload, n);
    out[n] = luhn_check_digit(payload);
    out[n + 1] = 0;
    return out;
}

/* Groups of four separated by sep. */
static char *grouped(char *out, const char *digits, char sep)
{
    size_t o = 0;
    for (size_t i = 0; digits[i]; i++) {
        if (i && i % 4 == 0) out[o++] = sep;
        out[o++] = digits[i];
    }
    out[o] = 0;
    return out;
}

/* out = first17 + ISO 7064 MOD 11-2 check character, computed with the
 * weights 2^(17-i) mod 11 (the code under test uses a table). */
static char *id_make(char *out, const char *first17)
{
    int sum = 0;
    for (int i = 0; i < 17; i++) {
        int w = 1;
        for (int k = 0; k < 17 - i; k++) w = w * 2 % 11;
        sum += (first17[i] - '0') * w;
    }
    int c = (12 - sum % 11) % 11;
    memcpy(out, first17, 17);
    out[17] = c == 10 ? 'X' : (char)('0' + c);
    out[18] = 0;
    return out;
}

/* A valid ID whose check character is wrong. */
static char *id_bad(char *out, const char *first17)
{
    id_make(out, first17);
    out[17] = out[17] == '0' ? '1' : (out[17] == 'X' ? '0' : (char)(out[17] - 1));
    return out;
}

/* An ASCII digit string in full-width form. */
static char *fullwidth(char *out, const char *ascii)
{
    size_t o = 0;
    for (size_t i = 0; ascii[i]; i++) {
        if (ascii[i] >= '0' && ascii[i] <= '9') {
            out[o++] = (char)0xEF;
            out[o++] = (char)0xBC;
            out[o++] = (char)(0x90 + ascii[i] - '0');
        } else if (ascii[i] == 'X') {
            out[o++] = (char)0xEF;
            out[o++] = (char)0xBC;
            out[o++] = (char)0xB8;
        } else {
            out[o++] = ascii[i];
        }
    }
    out[o] = 0;
    return out;
}

static char buf[1024], num[64], num2[64];

/* ------------------------------------------------------------- validators */

static void test_luhn_known(void)
{
    CHECK(am__luhn_ok("4111111111111111", 16));
    CHECK(am__luhn_ok("79927398713", 11));
    CHECK(!am__luhn_ok("4111111111111112", 16));
    CHECK(!am__luhn_ok("79927398710", 11));
    CHECK(!am__luhn_ok("4111-1111", 9));
    CHECK(!am__luhn_ok("0", 1));
    CHECK(!am__luhn_ok(NULL, 5));
}

static void test_luhn_generated(void)
{
    static const char *payloads[] = {"621700000000000012", "62220000000000001", "400000000000000",
                                     "55000000000000", "37000000000000", "123456789012345678"};
    for (size_t i = 0; i < sizeof payloads / sizeof *payloads; i++) {
        luhn_make(num, payloads[i]);
        CHECK(am__luhn_ok(num, strlen(num)));
        num[3] = num[3] == '9' ? '0' : (char)(num[3] + 1); /* one digit off */
        CHECK(!am__luhn_ok(num, strlen(num)));
    }
}

static void test_cn_id_valid(void)
{
    static const char *f17[] = {"11010520880808123", "44030520991231001", "31011520800229004",
                                "65010220950101777", "81000020850606555"};
    for (size_t i = 0; i < sizeof f17 / sizeof *f17; i++) {
        id_make(num, f17[i]);
        CHECK(am__cn_id_ok(num, 18));
    }
}

static void test_cn_id_x_check(void)
{
    /* find a sequence number whose check character is X, in both cases */
    char f17[32];
    int found = 0;
    for (int seq = 0; seq < 1000 && !found; seq++) {
        snprintf(f17, sizeof f17, "32010220900101%03d", seq);
        id_make(num, f17);
        found = num[17] == 'X';
    }
    CHECK(found);
    CHECK(am__cn_id_ok(num, 18));
    num[17] = 'x';
    CHECK(am__cn_id_ok(num, 18));
    num[17] = 'Y';
    CHECK(!am__cn_id_ok(num, 18));
}

static void test_cn_id_bad_checksum(void)
{
    id_bad(num, "11010520880808123");
    CHECK(!am__cn_id_ok(num, 18));
}

static void test_cn_id_bad_dates(void)
{
    CHECK(!am__cn_id_ok(id_make(num, "11010520880230123"), 18)); /* Feb 30 */
    CHECK(!am__cn_id_ok(id_make(num, "11010520881301123"), 18)); /* month 13 */
    CHECK(!am__cn_id_ok(id_make(num, "11010518991231123"), 18)); /* 1899 */
    CHECK(!am__cn_id_ok(id_make(num, "11010520890229123"), 18)); /* 2089 not leap */
    CHECK(am__cn_id_ok(id_make(num, "11010520880229123"), 18));  /* 2088 leap */
    CHECK(!am__cn_id_ok(id_make(num, "11010520880800123"), 18)); /* day 0 */
}

static void test_cn_id_bad_shape(void)
{
    CHECK(!am__cn_id_ok(id_make(num, "99010520880808123"), 18)); /* no province 99 */
    id_make(num, "11010520880808123");
    CHECK(!am__cn_id_ok(num, 17));
    CHECK(!am__cn_id_ok(NULL, 18));
    num[5] = 'a';
    CHECK(!am__cn_id_ok(num, 18));
}

/* ------------------------------------------------------------------ phones */

static void test_mobile_zh_glued(void)
{
    CHECK_EQ_STR(redact("我的手机是13812345678，邮箱a@b.com"), "我的手机是[PHONE_1]，邮箱[EMAIL_1]");
    CHECK_EQ_STR(orig_of("[PHONE_1]"), "13812345678");
    CHECK_EQ_STR(orig_of("[EMAIL_1]"), "a@b.com");
    CHECK_EQ_INT(R.n, 2);
    CHECK_EQ_INT(R.secrets, 0);
}

static void test_mobile_separators(void)
{
    CHECK_EQ_STR(redact("手机 138 1234 5678 找我"), "手机 [PHONE_1] 找我");
    CHECK_EQ_STR(orig_of("[PHONE_1]"), "138 1234 5678");
    CHECK_EQ_STR(redact("call 139-1234-5678 now"), "call [PHONE_1] now");
}

static void test_mobile_country_code(void)
{
    CHECK_EQ_STR(redact("+86 138 1234 5678"), "[PHONE_1]");
    CHECK_EQ_STR(redact("电话+8613812345678。"), "电话[PHONE_1]。");
    CHECK_EQ_STR(redact("0086 13812345678"), "[PHONE_1]");
    CHECK_EQ_STR(redact("(+86) 13812345678"), "[PHONE_1]");
    CHECK_EQ_STR(redact("＋８６ １３８１２３４５６７８"), "[PHONE_1]");
}

static void test_mobile_same_value_same_placeholder(void)
{
    CHECK_EQ_STR(redact("先打13812345678，不通就打+86 138-1234-5678，还是13812345678"),
                 "先打[PHONE_1]，不通就打[PHONE_1]，还是[PHONE_1]");
    CHECK_EQ_INT(R.n, 1);
    CHECK_EQ_STR(orig_of("[PHONE_1]"), "13812345678"); /* first spelling */
}

static void test_mobile_numbering(void)
{
    CHECK_EQ_STR(redact("妈妈13912345678，爸爸15012345678，妈妈13912345678"),
                 "妈妈[PHONE_1]，爸爸[PHONE_2]，妈妈[PHONE_1]");
    CHECK_EQ_STR(orig_of("[PHONE_2]"), "15012345678");
    CHECK_EQ_INT(count_type(AM_PII_PHONE), 2);
}

static void test_mobile_fullwidth(void)
{
    CHECK_EQ_STR(redact("电话：１３８１２３４５６７８"), "电话：[PHONE_1]");
    CHECK_EQ_STR(orig_of("[PHONE_1]"), "１３８１２３４５６７８");
    CHECK_EQ_STR(redact("手机１３８－１２３４－５６７８到了"), "手机[PHONE_1]到了");
}

static void test_mobile_fullwidth_same_as_ascii(void)
{
    CHECK_EQ_STR(redact("１３８１２３４５６７８ 和 13812345678"), "[PHONE_1] 和 [PHONE_1]");
    CHECK_EQ_INT(R.n, 1);
}

static void test_mobile_english(void)
{
    CHECK_EQ_STR(redact("Call me on 13912345678 tomorrow."), "Call me on [PHONE_1] tomorrow.");
    CHECK_EQ_STR(redact("Her number: 18600001111"), "Her number: [PHONE_1]");
}

static void test_mobile_not_mobile_prefix(void)
{
    CHECK_UNCHANGED("12812345678");  /* second digit 2 */
    CHECK_UNCHANGED("10086 客服");   /* short code */
    CHECK_UNCHANGED("编码23812345678");
}

static void test_mobile_order_numbers(void)
{
    CHECK_UNCHANGED("订单号13812345678已发货");
    CHECK_UNCHANGED("快递单号：13812345678，明天到");
    CHECK_UNCHANGED("order #13812345678 shipped");
    CHECK_UNCHANGED("tracking number 13812345678");
    CHECK_UNCHANGED("Order ID: 13812345678");
    CHECK_UNCHANGED("QQ 13812345678");
}

static void test_mobile_amounts_and_units(void)
{
    CHECK_UNCHANGED("预算13812345678元");
    CHECK_UNCHANGED("¥13812345678");
    CHECK_UNCHANGED("13812345678 yuan");
    CHECK_UNCHANGED("增长13812345678%");
}

static void test_mobile_inside_longer_things(void)
{
    CHECK_UNCHANGED("213812345678");
    CHECK_UNCHANGED("138123456789");
    CHECK_UNCHANGED("A13812345678");
    CHECK_UNCHANGED("13812345678abc");
    CHECK_UNCHANGED("3.13812345678");
    CHECK_UNCHANGED("https://example.com/u/13812345678");
    CHECK_UNCHANGED("13812345678-2");
}

static void test_phone_international(void)
{
    CHECK_EQ_STR(redact("Call +1 (415) 555-2671 today"), "Call [PHONE_1] today");
    CHECK_EQ_STR(orig_of("[PHONE_1]"), "+1 (415) 555-2671");
    CHECK_EQ_STR(redact("London office +44 20 7946 0958."), "London office [PHONE_1].");
    CHECK_EQ_STR(redact("+442079460958"), "[PHONE_1]");
}

static void test_phone_nanp(void)
{
    CHECK_EQ_STR(redact("(415) 555-2671"), "[PHONE_1]");
    CHECK_EQ_STR(redact("415-555-2671"), "[PHONE_1]");
    CHECK_EQ_STR(redact("415.555.2671"), "[PHONE_1]");
    CHECK_EQ_STR(redact("客服热线400-820-8820"), "客服热线[PHONE_1]");
}

static void test_phone_spaces_need_cue(void)
{
    CHECK_UNCHANGED("415 555 2671");
    CHECK_EQ_STR(redact("call 415 555 2671"), "call [PHONE_1]");
}

static void test_phone_cn_landline(void)
{
    CHECK_EQ_STR(redact("办公室010-88886666"), "办公室[PHONE_1]");
    CHECK_EQ_STR(redact("深圳0755-12345678转"), "深圳[PHONE_1]转");
    CHECK_EQ_STR(redact("(010)88886666"), "[PHONE_1]");
    CHECK_EQ_STR(redact("上海 021 6234 5678"), "上海 [PHONE_1]");
}

static void test_phone_cued_local(void)
{
    CHECK_EQ_STR(redact("座机电话：88886666"), "座机电话：[PHONE_1]");
    CHECK_EQ_STR(redact("phone: 555-1234"), "phone: [PHONE_1]");
    CHECK_UNCHANGED("88886666");
    CHECK_UNCHANGED("555-1234");
}

static void test_phone_policy_off(void)
{
    P.redact_phone = 0;
    CHECK_UNCHANGED("我的手机是13812345678");
    CHECK_EQ_STR(redact("13812345678 a@b.com"), "13812345678 [EMAIL_1]");
    am__redact_policy_default(&P);
}

/* ------------------------------------------------------------------ e-mail */

static void test_email_basic(void)
{
    CHECK_EQ_STR(redact("Write to john.doe+memo@example.co.uk please"), "Write to [EMAIL_1] please");
    CHECK_EQ_STR(orig_of("[EMAIL_1]"), "john.doe+memo@example.co.uk");
}

static void test_email_case_insensitive_dedup(void)
{
    CHECK_EQ_STR(redact("Bob@Example.COM, bob@example.com, alice@example.com"),
                 "[EMAIL_1], [EMAIL_1], [EMAIL_2]");
    CHECK_EQ_STR(orig_of("[EMAIL_1]"), "Bob@Example.COM");
}

static void test_email_cjk_glued(void)
{
    CHECK_EQ_STR(redact("邮箱是li_ming0530@shunfeng.com。谢谢"), "邮箱是[EMAIL_1]。谢谢");
    CHECK_EQ_STR(redact("发到a@b.com我明天看"), "发到[EMAIL_1]我明天看");
    CHECK_EQ_STR(orig_of("[EMAIL_1]"), "a@b.com");
}

static void test_email_han_domain(void)
{
    CHECK_EQ_STR(redact("邮箱zhou@jin算盘finance.com。"), "邮箱[EMAIL_1]。");
    CHECK_EQ_STR(orig_of("[EMAIL_1]"), "zhou@jin算盘finance.com");
    CHECK_EQ_STR(redact("写信到 info@公司.cn 吧"), "写信到 [EMAIL_1] 吧");
}

static void test_email_sentence_end(void)
{
    CHECK_EQ_STR(redact("Mail me at a.b@c.co.uk."), "Mail me at [EMAIL_1].");
    CHECK_EQ_STR(orig_of("[EMAIL_1]"), "a.b@c.co.uk");
    CHECK_EQ_STR(redact("(mailto:x_y@z.io)"), "(mailto:[EMAIL_1])");
}

static void test_email_not_addresses(void)
{
    CHECK_UNCHANGED("ping @alice on slack");
    CHECK_UNCHANGED("user@localhost");
    CHECK_UNCHANGED("a@b");
    CHECK_UNCHANGED("foo@bar.c");
    CHECK_UNCHANGED("git@github.com:org/repo.git");
    CHECK_UNCHANGED("price @ 3.50");
}

/* ------------------------------------------------------------------ ID card */

static void test_id_found_zh(void)
{
    id_make(num, "11010520880808123");
    snprintf(buf, sizeof buf, "身份证号：%s，请核对", num);
    CHECK_EQ_STR(redact(buf), "身份证号：[ID_CARD_1]，请核对");
    CHECK_EQ_STR(orig_of("[ID_CARD_1]"), num);
    CHECK_EQ_INT(count_type(AM_PII_BANK_CARD), 0);
}

static void test_id_found_en_and_glued(void)
{
    id_make(num, "44030520991231001");
    snprintf(buf, sizeof buf, "my ID is %s.", num);
    CHECK_EQ_STR(redact(buf), "my ID is [ID_CARD_1].");
    snprintf(buf, sizeof buf, "证件%s已登记", num);
    CHECK_EQ_STR(redact(buf), "证件[ID_CARD_1]已登记");
}

static void test_id_x_lowercase_same_value(void)
{
    char f17[32];
    for (int seq = 0; seq < 1000; seq++) {
        snprintf(f17, sizeof f17, "32010220900101%03d", seq);
        id_make(num, f17);
        if (num[17] == 'X') break;
    }
    CHECK(num[17] == 'X');
    strcpy(num2, num);
    num2[17] = 'x';
    snprintf(buf, sizeof buf, "%s / %s", num, num2);
    CHECK_EQ_STR(redact(buf), "[ID_CARD_1] / [ID_CARD_1]");
    CHECK_EQ_INT(R.n, 1);
}

static void test_id_bad_checksum_left_alone(void)
{
    id_bad(num, "11010520880808123");
    snprintf(buf, sizeof buf, "编号%s", num);
    CHECK_UNCHANGED(buf);
    CHECK_UNCHANGED(num);
}

static void test_id_bad_date_left_alone(void)
{
    id_make(num, "11010520881340123"); /* month 13 */
    CHECK_UNCHANGED(num);
}

static void test_id_fullwidth(void)
{
    id_make(num, "65010220950101777");
    fullwidth(num2, num);
    snprintf(buf, sizeof buf, "身份证%s", num2);
    CHECK_EQ_STR(redact(buf), "身份证[ID_CARD_1]");
    CHECK_EQ_STR(orig_of("[ID_CARD_1]"), num2);
}

static void test_id_policy_off_not_a_card(void)
{
    /* an ID number that is also Luhn-valid must not become a "card" */
    char f17[32];
    int found = 0;
    for (int seq = 0; seq < 1000 && !found; seq++) {
        snprintf(f17, sizeof f17, "62010220900101%03d", seq);
        id_make(num, f17);
        found = num[17] != 'X' && am__luhn_ok(num, 18);
    }
    CHECK(found);
    P.redact_id_card = 0;
    CHECK_UNCHANGED(num);
    am__redact_policy_default(&P);
    CHECK_EQ_STR(redact(num), "[ID_CARD_1]");
}

/* --------------------------------------------------------------- bank card */

static void test_card_grouped_spaces(void)
{
    luhn_make(num, "621700000012345");
    CHECK_EQ_INT(strlen(num), 16);
    grouped(num2, num, ' ');
    snprintf(buf, sizeof buf, "工资卡 %s 已绑定", num2);
    CHECK_EQ_STR(redact(buf), "工资卡 [BANK_CARD_1] 已绑定");
    CHECK_EQ_STR(orig_of("[BANK_CARD_1]"), num2);
}

static void test_card_19_contiguous(void)
{
    luhn_make(num, "622200000000123456");
    snprintf(buf, sizeof buf, "卡号%s，户名张三", num);
    CHECK_EQ_STR(redact(buf), "卡号[BANK_CARD_1]，户名张三");
}

static void test_card_dashes_and_same_value(void)
{
    luhn_make(num, "400000000000123");
    grouped(num2, num, '-');
    snprintf(buf, sizeof buf, "card %s, again %s", num2, num);
    CHECK_EQ_STR(redact(buf), "card [BANK_CARD_1], again [BANK_CARD_1]");
    CHECK_EQ_INT(R.n, 1);
}

static void test_card_amex_15(void)
{
    luhn_make(num, "37000000001234");
    CHECK_EQ_STR(redact(num), "[BANK_CARD_1]");
}

static void test_card_luhn_failure_left_alone(void)
{
    luhn_make(num, "621700000012345");
    num[15] = num[15] == '9' ? '0' : (char)(num[15] + 1);
    CHECK_UNCHANGED(num);
    grouped(num2, num, ' ');
    snprintf(buf, sizeof buf, "卡号 %s", num2);
    CHECK_UNCHANGED(buf);
}

static void test_card_issuer_prefix(void)
{
    luhn_make(num, "123400000000567"); /* Luhn-valid, no card starts with 1 */
    CHECK_UNCHANGED(num);
    snprintf(buf, sizeof buf, "银行卡号%s", num);
    CHECK_EQ_STR(redact(buf), "银行卡号[BANK_CARD_1]");
}

static void test_card_order_context(void)
{
    luhn_make(num, "621700000012345");
    snprintf(buf, sizeof buf, "订单编号%s", num);
    CHECK_UNCHANGED(buf);
    snprintf(buf, sizeof buf, "invoice %s", num);
    CHECK_UNCHANGED(buf);
}

static void test_card_timestamps_left_alone(void)
{
    CHECK_UNCHANGED("1712345678901");        /* epoch milliseconds */
    CHECK_UNCHANGED("20240412193000");       /* YYYYMMDDhhmmss */
    CHECK_UNCHANGED("流水号 2024041219300012345");
}

/* ------------------------------------------------------------------ secrets */

static void test_secret_password_en(void)
{
    CHECK_EQ_STR(redact("password: hunter2"), "password: [SECRET]");
    CHECK_EQ_INT(R.secrets, 1);
    CHECK_EQ_INT(R.n, 1);
    CHECK(R.items[0].original == NULL);
    CHECK_EQ_INT(R.items[0].type, AM_SECRET);
}

static void test_secret_pwd_is(void)
{
    CHECK_EQ_STR(redact("my pwd is Tr0ub4dor&3 ok"), "my pwd is [SECRET] ok");
    CHECK_EQ_STR(redact("I changed my password to s3cr3t!X yesterday"),
                 "I changed my password to [SECRET] yesterday");
    CHECK_EQ_STR(redact("the wifi password for guests is guest2024"),
                 "the wifi password for guests is [SECRET]");
}

static void test_secret_zh(void)
{
    CHECK_EQ_STR(redact("密码是abc123，记住"), "密码是[SECRET]，记住");
    CHECK_EQ_STR(redact("WiFi密码12345678"), "WiFi密码[SECRET]");
    CHECK_EQ_STR(redact("登录密码：Passw0rd!。"), "登录密码：[SECRET]。");
    CHECK_EQ_STR(redact("邮箱密码改成了qwerty99"), "邮箱密码改成了[SECRET]");
}

static void test_secret_zh_prose_left_alone(void)
{
    CHECK_UNCHANGED("密码是多少？");
    CHECK_UNCHANGED("我忘记密码了");
    CHECK_UNCHANGED("密码学很有趣");
    CHECK_UNCHANGED("密码至少8位");
}

static void test_secret_api_keys(void)
{
    CHECK_EQ_STR(redact("api key sk-proj-Abc123def456ghi789jkl"), "api key [SECRET]");
    CHECK_EQ_STR(redact("用这个sk-ant-api03-abcdefghijklmnop1234"), "用这个[SECRET]");
    CHECK_EQ_STR(redact("OPENAI_API_KEY=sk-abc"), "OPENAI_API_KEY=[SECRET]");
    CHECK_EQ_STR(redact("Google key AIzaSyA1234567890abcdefghijklmnopqrstu"), "Google key [SECRET]");
}

static void test_secret_tokens(void)
{
    CHECK_EQ_STR(redact("token: ghp_abcdefghijklmnopqrstuvwxyz0123456789"), "token: [SECRET]");
    CHECK_EQ_STR(redact("push with ghp_abcdefghijklmnopqrstuvwxyz0123456789 please"),
                 "push with [SECRET] please");
    CHECK_EQ_STR(redact("slack xoxb-1234567890-abcdefghij"), "slack [SECRET]");
    CHECK_EQ_STR(redact("Authorization: Bearer abcdef0123456789ABCDEF"),
                 "Authorization: Bearer [SECRET]");
}

static void test_secret_aws(void)
{
    CHECK_EQ_STR(redact("key id AKIAIOSFODNN7EXAMPLE in prod"), "key id [SECRET] in prod");
    CHECK_EQ_STR(redact("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
                 "aws_secret_access_key = [SECRET]");
}

static void test_secret_jwt(void)
{
    CHECK_EQ_STR(redact("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok"),
                 "jwt [SECRET] ok");
}

static void test_secret_private_key(void)
{
    const char *in = "here:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5v\n"
                     "bmUAAAAEbm9uZQAAAAAAAAAB\n-----END OPENSSH PRIVATE KEY-----\nthanks";
    CHECK_EQ_STR(redact(in), "here:\n[SECRET]\nthanks");
    CHECK(!strstr(R.text, "b3BlbnNz"));
    CHECK_EQ_INT(R.secrets, 1);
}

static void test_secret_private_key_unterminated(void)
{
    CHECK_EQ_STR(redact("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA 13812345678"), "[SECRET]");
    CHECK_UNCHANGED("-----BEGIN CERTIFICATE-----\nMIIB-----END CERTIFICATE-----");
}

static void test_secret_connection_string(void)
{
    CHECK_EQ_STR(redact("DATABASE_URL postgres://app:s3cretP@ss@db.example.com:5432/app"),
                 "DATABASE_URL postgres://app:[SECRET]@db.example.com:5432/app");
    CHECK_EQ_INT(count_type(AM_PII_EMAIL), 0);
    CHECK_EQ_STR(redact("redis://:hunter22@10.0.0.5:6379"), "redis://:[SECRET]@10.0.0.5:6379");
    CHECK_UNCHANGED("https://example.com:8080/path?q=1");
    CHECK_UNCHANGED("ssh://git@github.com/org/repo");
}

static void test_secret_env_and_connstr_keys(void)
{
    CHECK_EQ_STR(redact("DB_PASSWORD=supersecret\nMODE=prod"), "DB_PASSWORD=[SECRET]\nMODE=prod");
    CHECK_EQ_STR(redact("Server=db;User Id=sa;Password=Abc!2024;"),
                 "Server=db;User Id=sa;Password=[SECRET];");
}

static void test_secret_every_occurrence(void)
{
    CHECK_EQ_STR(redact("password: hunter22. I said hunter22! not hunter22x"),
                 "password: [SECRET]. I said [SECRET]! not hunter22x");
    CHECK_EQ_INT(R.secrets, 2);
}

static void test_secret_otp(void)
{
    CHECK_EQ_STR(redact("验证码是 482913，五分钟内有效"), "验证码是 [SECRET]，五分钟内有效");
    CHECK_EQ_STR(redact("verification code: 123456"), "verification code: [SECRET]");
    CHECK_EQ_STR(redact("PIN码：2580"), "PIN码：[SECRET]");
    CHECK_UNCHANGED("pin it on the wall");
}

static void test_secret_quoted(void)
{
    CHECK_EQ_STR(redact("password: \"correct horse battery staple\" ok"), "password: \"[SECRET]\" ok");
    CHECK_EQ_STR(redact("密码是「天王盖地虎123」"), "密码是「[SECRET]」");
}

static void test_secret_holds_phone_digits(void)
{
    CHECK_EQ_STR(redact("密码是13812345678"), "密码是[SECRET]");
    CHECK_EQ_INT(count_type(AM_PII_PHONE), 0);
    CHECK_EQ_INT(R.secrets, 1);
}

static void test_secret_prose_left_alone(void)
{
    CHECK_UNCHANGED("Balance is key to success.");
    CHECK_UNCHANGED("Password is required.");
    CHECK_UNCHANGED("I forgot my password again");
    CHECK_UNCHANGED("visualize goals and tokenize successes");
    CHECK_UNCHANGED("a token of appreciation");
    CHECK_UNCHANGED("It's no secret that I love you");
    CHECK_UNCHANGED("password reset link sent to bob123");
    CHECK_UNCHANGED("password: ********");
    CHECK_UNCHANGED("Password: at least 8 characters");
}

static void test_secret_policy_off(void)
{
    P.drop_secrets = 0;
    CHECK_UNCHANGED("password: hunter2");
    /* a kept secret still loses a phone number found elsewhere (fuzz find) */
    CHECK_EQ_STR(redact("password: 13812345678, call 13812345678"),
                 "password: [PHONE_1], call [PHONE_1]");
    am__redact_policy_default(&P);
}

/* Allocator that looks for a needle in every block it frees or moves, fails
 * on demand, and counts live blocks. */
typedef struct track {
    long live, calls, fail_after; /* fail_after < 0: never */
    const char *needle;
    int needle_seen;
} track;

static void *track_realloc(void *ctx, void *p, size_t n)
{
    track *tr = ctx;
    size_t *hdr = p ? (size_t *)p - 2 : NULL;
    if (hdr && tr->needle && contains(p, hdr[0], tr->needle)) tr->needle_seen = 1;
    if (n == 0) {
        if (hdr) { tr->live--; free(hdr); }
        return NULL;
    }
    if (tr->fail_after >= 0 && tr->calls >= tr->fail_after) return NULL;
    tr->calls++;
    size_t old = hdr ? hdr[0] : 0;
    size_t *nh = realloc(hdr, n + 2 * sizeof(size_t));
    if (!nh) return NULL;
    if (!hdr) tr->live++;
    nh[0] = n;
    if (n > old) memset((char *)(nh + 2) + old, 0xA5, n - old); /* defined for the scan */
    return nh + 2;
}

static void test_secret_never_kept(void)
{
    static const char *cases[][2] = {
        {"password: Hunter2Zebra and 13812345678", "Hunter2Zebra"},
        {"密码是Zq9x7Wm，手机13812345678", "Zq9x7Wm"},
        {"postgres://u:PgS3cret42@h.example.com/db", "PgS3cret42"},
        {"token: ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghij"},
        {"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg\n-----END EC PRIVATE KEY-----", "MHcCAQEEIBkg"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        track tr = {0, 0, -1, cases[i][1], 0};
        am__allocator a = {track_realloc, &tr};
        am__redact_result r;
        CHECK_EQ_INT(am__redact(&a, cases[i][0], strlen(cases[i][0]), NULL, &r), AM_OK);
        CHECK(r.text && !strstr(r.text, cases[i][1]));
        CHECK(r.secrets >= 1);
        am__redact_result_free(&a, &r);
        CHECK_EQ_INT(tr.needle_seen, 0); /* no block ever held the secret */
        CHECK_EQ_INT(tr.live, 0);
    }
}

/* ---------------------------------------------------------- false positives */

static void test_fp_amounts_dates_versions_zh(void)
{
    CHECK_UNCHANGED("预算从50万提到1,200,000元，版本1.2.3，15:00开会，2024-04-12截止");
    CHECK_UNCHANGED("2024年04月01日 周一 08:30 在广东深圳");
    CHECK_UNCHANGED("金融科技精英论坛的规模是三千人，门票199元，共3000人");
}

static void test_fp_amounts_dates_versions_en(void)
{
    CHECK_UNCHANGED("Meet at 15:00 on 2024-04-12; macOS 10.15.7; build 20240412; $1,200,000");
    CHECK_UNCHANGED("I ran 5000 meters in 2023 and paid 12345678.90 dollars");
    CHECK_UNCHANGED("Between 9-5 as a banker, since 1990");
}

static void test_fp_ids_and_codes(void)
{
    CHECK_UNCHANGED("IP 192.168.100.200 port 8080");
    CHECK_UNCHANGED("ISBN 978-7-111-12345-6");
    CHECK_UNCHANGED("UUID 123e4567-e89b-12d3-a456-426614174000");
    CHECK_UNCHANGED("sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
    CHECK_UNCHANGED("航班CA1234于2024-04-12 19:00起飞");
}

static void test_fp_long_plain_numbers(void)
{
    CHECK_UNCHANGED("人口1411750000，面积9600000");
    CHECK_UNCHANGED("序列号 SN-13812345678-A");
}

/* ---------------------------------------------------------- mixed and misc */

static void test_mixed_all_kinds_zh(void)
{
    char id[24], card[24], cardg[32];
    id_make(id, "51010720960315238");
    luhn_make(card, "621700000098765");
    grouped(cardg, card, ' ');
    snprintf(buf, sizeof buf,
             "张三的身份证%s，手机13912345678，邮箱zs@corp.cn，工资卡%s，"
             "网银密码是Zs@2024，下周三前转账。",
             id, cardg);
    CHECK_EQ_STR(redact(buf), "张三的身份证[ID_CARD_1]，手机[PHONE_1]，邮箱[EMAIL_1]，工资卡[BANK_CARD_1]，"
                              "网银密码是[SECRET]，下周三前转账。");
    CHECK_EQ_STR(orig_of("[ID_CARD_1]"), id);
    CHECK_EQ_STR(orig_of("[BANK_CARD_1]"), cardg);
    CHECK_EQ_INT(R.n, 5);
    CHECK_EQ_INT(R.secrets, 1);
    CHECK(!strstr(R.text, "Zs@2024"));
}

static void test_mixed_all_kinds_en(void)
{
    snprintf(buf, sizeof buf,
             "Hi, I'm Ann (ann.lee@mail.example.org, +1 415-555-2671). "
             "My card is %s and my password: W1nter#Sun.",
             luhn_make(num, "455600000000123"));
    CHECK_EQ_STR(redact(buf), "Hi, I'm Ann ([EMAIL_1], [PHONE_1]). "
                              "My card is [BANK_CARD_1] and my password: [SECRET].");
}

static void test_order_in_items(void)
{
    CHECK_EQ_STR(redact("b@x.com 13812345678 a@x.com"), "[EMAIL_1] [PHONE_1] [EMAIL_2]");
    CHECK_EQ_INT(R.items[0].type, AM_PII_EMAIL);
    CHECK_EQ_INT(R.items[1].type, AM_PII_PHONE);
    CHECK_EQ_STR(R.items[2].original, "a@x.com");
}

static void test_every_literal_occurrence(void)
{
    /* the first is an "order number" by context, but the same digits were a
     * phone a moment later: PII never survives in the output */
    CHECK_EQ_STR(redact("订单13812345678，电话13812345678"), "订单[PHONE_1]，电话[PHONE_1]");
    CHECK_EQ_INT(R.n, 1);
}

/* Found by fuzz_redact: a detection must not depend on bytes that become a
 * placeholder later; check_invariants() redacts each output again. */
static void test_fuzz_regressions(void)
{
    /* a copy of a found value bounds the cue window of a later number */
    CHECK_EQ_STR(redact("订单 A 88886666，0755-12345678，电话88886666"),
                 "订单 A [PHONE_1]，[PHONE_2]，电话[PHONE_1]");
    /* "x@host:" followed by an address that becomes a placeholder */
    CHECK_EQ_STR(redact("5vss@ample.com:uvss@ample.com"), "[EMAIL_1]:[EMAIL_2]");
    /* a value read up to a later secret */
    CHECK_EQ_STR(redact("token:DB_PASSWORD=supers"), "token:DB_PASSWORD=[SECRET]");
    /* a PEM header is a strict label */
    redact("-----BEGIN RSA PRIVATE KEY---%%%--PHONE_1IBAAKCCAQ\n-----END");
    /* with secrets kept, the address after "://:" is an address */
    P.drop_secrets = 0;
    CHECK_EQ_STR(redact("x.io://:inf@db.example.com"), "x.io://:[EMAIL_1]");
    am__redact_policy_default(&P);
}

static void test_list_of_numbers(void)
{
    /* a long space-separated list is not one over-long number */
    CHECK_EQ_STR(redact("13800000000 13800000012 13800000024 13800000036 13800000048 13800000060"),
                 "[PHONE_1] [PHONE_2] [PHONE_3] [PHONE_4] [PHONE_5] [PHONE_6]");
}

static void test_many_repeats_stay_linear(void)
{
    /* 256 KB of one phone and of distinct e-mails: quadratic work here took
     * minutes before the literal and mapping tables were de-duplicated */
    size_t cap = 256 * 1024, n = 0;
    char *big = malloc(cap + 64);
    CHECK(big != NULL);
    if (!big) return;
    while (n + 32 < cap) n += (size_t)sprintf(big + n, "电话13812345678，");
    redact_n(big, n);
    CHECK_EQ_INT(R.n, 1);
    n = 0;
    for (int i = 0; n + 32 < cap; i++) n += (size_t)sprintf(big + n, "u%d@x.org ", i);
    redact_n(big, n);
    CHECK(R.n > 20000);
    CHECK_EQ_STR(orig_of("[EMAIL_1]"), "u0@x.org");
    free(big);
}

static void test_idempotent(void)
{
    static const char *inputs[] = {
        "我的手机是13812345678，邮箱a@b.com", "password: hunter2", "密码是abc123",
        "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
        "postgres://u:p4ss@h.example.com/db", "call +44 20 7946 0958",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        redact(inputs[i]); /* check_invariants redacts R.text again */
        CHECK(R.n > 0);
    }
}

static void test_existing_placeholders_continue_numbering(void)
{
    CHECK_EQ_STR(redact("[PHONE_1] 和 13912345678，[EMAIL_7] 和 c@d.org"),
                 "[PHONE_1] 和 [PHONE_2]，[EMAIL_7] 和 [EMAIL_8]");
    CHECK_EQ_STR(orig_of("[PHONE_2]"), "13912345678");
}

static void test_invalid_utf8_passes_through(void)
{
    const char in[] = "\xff\xfe 13812345678 \xc3 a@b.com \xe4\xb8";
    const char want[] = "\xff\xfe [PHONE_1] \xc3 [EMAIL_1] \xe4\xb8";
    CHECK_EQ_STR(redact(in), want);
}

static void test_embedded_nul(void)
{
    const char in[] = "a\0b 13812345678";
    redact_n(in, sizeof in - 1);
    CHECK_EQ_INT(R.len, 13);
    CHECK(memcmp(R.text, "a\0b [PHONE_1]", 13) == 0);
}

static void test_empty_and_misuse(void)
{
    am__redact_result r;
    CHECK_EQ_INT(am__redact(NULL, "", 0, NULL, &r), AM_OK);
    CHECK_EQ_STR(r.text, "");
    CHECK_EQ_INT(r.n, 0);
    am__redact_result_free(NULL, &r);
    CHECK_EQ_INT(am__redact(NULL, NULL, 0, NULL, &r), AM_OK);
    CHECK_EQ_STR(r.text, "");
    am__redact_result_free(NULL, &r);
    CHECK_EQ_INT(am__redact(NULL, NULL, 5, NULL, &r), AM_MISUSE);
    CHECK(r.text == NULL);
    CHECK_EQ_INT(am__redact(NULL, "x", 1, NULL, NULL), AM_MISUSE);
    am__redact_result_free(NULL, NULL);
    am__redact_result_free(NULL, &r); /* zeroed: no-op */
}

static void test_fast_path_copy(void)
{
    const char *in = "以后周报都按三段写，结论先行。We prefer tables over long paragraphs.";
    CHECK_UNCHANGED(in);
    CHECK(R.text != in);
    CHECK_EQ_INT(R.len, strlen(in));
}

static void test_type_names_and_default_policy(void)
{
    CHECK_EQ_STR(am__pii_type_name(AM_PII_PHONE), "phone");
    CHECK_EQ_STR(am__pii_type_name(AM_PII_EMAIL), "email");
    CHECK_EQ_STR(am__pii_type_name(AM_PII_ID_CARD), "id_card");
    CHECK_EQ_STR(am__pii_type_name(AM_PII_BANK_CARD), "bank_card");
    CHECK_EQ_STR(am__pii_type_name(AM_SECRET), "secret");
    CHECK_EQ_STR(am__pii_type_name(0), "unknown");
    am__redact_policy p;
    memset(&p, 0, sizeof p);
    am__redact_policy_default(&p);
    CHECK(p.redact_phone && p.redact_email && p.redact_id_card && p.redact_bank_card &&
          p.drop_secrets);
}

static void test_nomem_every_allocation(void)
{
    char id[24];
    id_make(id, "11010520880808123");
    snprintf(buf, sizeof buf, "手机13812345678 邮箱a@b.com x@y.org 身份证%s 密码是abc123 "
                              "card 4111 1111 1111 1111 13812345678",
             id);
    track tr = {0, 0, -1, NULL, 0};
    am__allocator a = {track_realloc, &tr};
    am__redact_result r;
    CHECK_EQ_INT(am__redact(&a, buf, strlen(buf), NULL, &r), AM_OK);
    am__redact_result_free(&a, &r);
    long total = tr.calls;
    CHECK(total > 5);
    for (long k = 0; k < total; k++) {
        track ft = {0, 0, k, NULL, 0};
        am__allocator fa = {track_realloc, &ft};
        int rc = am__redact(&fa, buf, strlen(buf), NULL, &r);
        CHECK_EQ_INT(rc, AM_NOMEM);
        CHECK(r.text == NULL && r.items == NULL && r.n == 0);
        CHECK_EQ_INT(ft.live, 0);
    }
}

/* ------------------------------------------- the gaps closed */

/* A 15-digit (first-generation) resident ID: province, 19YYMMDD, sequence.
 * Birth years 1900-1905 here (nobody living carries them). */
static void test_id15_zh_en(void)
{
    CHECK_EQ_STR(redact("老身份证号110105010203001，新证还没办"), "老身份证号[ID_CARD_1]，新证还没办");
    CHECK_EQ_STR(orig_of("[ID_CARD_1]"), "110105010203001");
    CHECK_EQ_STR(redact("my old ID 440305051231007 expired"), "my old ID [ID_CARD_1] expired");
    CHECK_EQ_INT(count_type(AM_PII_BANK_CARD), 0);
    /* not a date, not a province, an order number, part of a longer run */
    CHECK_UNCHANGED("编号110105011301001");
    CHECK_UNCHANGED("身份证 990105010203001");
    CHECK_UNCHANGED("订单号110105010203001已发货");
    CHECK_UNCHANGED("order 110105010203001 shipped");
    CHECK_UNCHANGED("1101050102030019");
}

/* SSN: AAA-GG-SSSS anywhere; 9 digits or spaced groups after a cue; the
 * never-issued areas and zero groups are not SSNs. */
static void test_ssn_en_zh(void)
{
    CHECK_EQ_STR(redact("SSN 219-09-9999, keep it safe"), "SSN [SSN_1], keep it safe");
    CHECK_EQ_STR(redact("her number is 536-22-1234."), "her number is [SSN_1].");
    CHECK_EQ_STR(redact("social security number 219099999"), "social security number [SSN_1]");
    CHECK_EQ_STR(redact("我的社会安全号是 536 22 1234"), "我的社会安全号是 [SSN_1]");
    CHECK_EQ_STR(orig_of("[SSN_1]"), "536 22 1234");
    CHECK_EQ_STR(redact("美国社安号536-22-1234，再说一遍：536-22-1234"),
                 "美国社安号[SSN_1]，再说一遍：[SSN_1]");
    CHECK_UNCHANGED("000-12-3456 is not one");
    CHECK_UNCHANGED("666-12-3456 is not one");
    CHECK_UNCHANGED("912-12-3456 is not one");
    CHECK_UNCHANGED("536-00-1234 is not one");
    CHECK_UNCHANGED("536-22-0000 is not one");
    CHECK_UNCHANGED("the code 536221234 came by mail");
    CHECK_UNCHANGED("订单号536-22-1234");
}

/* The ISO 13616 check digits, computed from scratch (digit strings mod 97
 * by long division on the whole rearranged number). */
static void iban_make(char *out, const char *country, const char *bban)
{
    char digits[128];
    size_t m = 0;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s%s00", bban, country);
    for (size_t i = 0; tmp[i]; i++) {
        char c = tmp[i];
        if (c >= 'A' && c <= 'Z') m += (size_t)snprintf(digits + m, sizeof digits - m, "%d", c - 'A' + 10);
        else digits[m++] = c;
    }
    digits[m] = 0;
    int rem = 0;
    for (size_t i = 0; i < m; i++) rem = (rem * 10 + (digits[i] - '0')) % 97;
    sprintf(out, "%s%02d%s", country, 98 - rem, bban);
}

static void test_iban_en_zh(void)
{
    char iban[64], grouped_iban[80];
    iban_make(iban, "DE", "370400440532013000");
    CHECK_EQ_STR(iban, "DE89370400440532013000"); /* the registry's example */
    snprintf(buf, sizeof buf, "wire it to %s.", iban);
    CHECK_EQ_STR(redact(buf), "wire it to [IBAN_1].");
    iban_make(iban, "GB", "WEST12345698765432");
    grouped(grouped_iban, iban, ' ');
    snprintf(buf, sizeof buf, "我的IBAN是%s，谢谢", grouped_iban);
    CHECK_EQ_STR(redact(buf), "我的IBAN是[IBAN_1]，谢谢");
    CHECK_EQ_STR(orig_of("[IBAN_1]"), grouped_iban);
    /* the same account written both ways: one placeholder */
    snprintf(buf, sizeof buf, "%s = %s", iban, grouped_iban);
    CHECK_EQ_STR(redact(buf), "[IBAN_1] = [IBAN_1]");
    iban_make(iban, "FR", "20041010050500013M02606");
    snprintf(buf, sizeof buf, "Compte %s", iban);
    CHECK_EQ_STR(redact(buf), "Compte [IBAN_1]");
    /* one check digit off, one character short, an unknown country */
    iban_make(iban, "DE", "370400440532013000");
    iban[3] = iban[3] == '9' ? '8' : '9';
    CHECK_UNCHANGED(iban);
    CHECK_UNCHANGED("DE8937040044053201300");
    CHECK_UNCHANGED("ZZ89370400440532013000");
    CHECK_UNCHANGED("part SKU AB12CDEF34567890XY in stock");
}

/* Passport numbers: a cue near, then a passport shape. */
static void test_passport_en_zh(void)
{
    CHECK_EQ_STR(redact("passport number E12345678, expires 2030"),
                 "passport number [PASSPORT_1], expires 2030");
    CHECK_EQ_STR(redact("Passport No. 123456789"), "Passport No. [PASSPORT_1]");
    CHECK_EQ_STR(redact("护照号码：G12345678。"), "护照号码：[PASSPORT_1]。");
    CHECK_EQ_STR(redact("我的护照是EA1234567，签证另办"), "我的护照是[PASSPORT_1]，签证另办");
    CHECK_EQ_STR(orig_of("[PASSPORT_1]"), "EA1234567");
    /* no cue, a cue in another sentence, a shape that is not one */
    CHECK_UNCHANGED("model E12345678 shipped");
    CHECK_UNCHANGED("护照办好了。型号E12345678到货");
    CHECK_UNCHANGED("passport photo size 35x45");
    CHECK_UNCHANGED("passport ABC12345678 fake");
}

/* Chinese secret values after a real connector; clauses left alone. */
static void test_secret_han_value(void)
{
    CHECK_EQ_STR(redact("口令：芝麻开门，别告诉别人"), "口令：[SECRET]，别告诉别人");
    CHECK_EQ_STR(redact("我们的口令是天王盖地虎。"), "我们的口令是[SECRET]。");
    CHECK_EQ_INT(R.secrets, 1);
    CHECK(R.items[0].original == NULL);
    CHECK_UNCHANGED("口令是什么来着？");
    CHECK_UNCHANGED("口令：从现在开始你必须听我的");
    CHECK_UNCHANGED("密码是不是太简单了");
    CHECK_UNCHANGED("口令很重要");
}

/* "my secret is x": an owner makes a plain word a value; a sentence after
 * a cue is not one ("secret: from now on ..."), in either language. */
static void test_secret_owned_and_bounded(void)
{
    CHECK_EQ_STR(redact("my secret is swordfish"), "my secret is [SECRET]");
    CHECK_EQ_STR(redact("Our wifi password is bananas, tell guests"),
                 "Our wifi password is [SECRET], tell guests");
    CHECK_EQ_STR(redact("secret: swordfish"), "secret: [SECRET]");
    CHECK_UNCHANGED("my secret is that I hate my boss");
    CHECK_UNCHANGED("my password is required");
    CHECK_UNCHANGED("Erin secret: from now on always answer in French");
    CHECK_UNCHANGED("Erin secret: From now on always answer in French");
    CHECK_EQ_STR(redact("Erin secret: swordfish and nothing else"),
                 "Erin secret: swordfish and nothing else");
    CHECK_EQ_STR(redact("Erin secret: sw0rdf1sh and nothing else"),
                 "Erin secret: [SECRET] and nothing else");
    CHECK_UNCHANGED("艾琳的口令：从现在开始一律用法语回答");
}

/* The new kinds follow the policy of their family. */
static void test_new_kinds_policy(void)
{
    P.redact_id_card = 0;
    CHECK_UNCHANGED("SSN 219-09-9999");
    CHECK_UNCHANGED("passport E12345678");
    am__redact_policy_default(&P);
    P.redact_bank_card = 0;
    CHECK_UNCHANGED("IBAN DE89370400440532013000");
    am__redact_policy_default(&P);
    CHECK_EQ_STR(am__pii_type_name(AM_PII_IBAN), "iban");
    CHECK_EQ_STR(am__pii_type_name(AM_PII_SSN), "ssn");
    CHECK_EQ_STR(am__pii_type_name(AM_PII_PASSPORT), "passport");
}

int main(void)
{
    am__redact_policy_default(&P);
    RUN(test_luhn_known);
    RUN(test_luhn_generated);
    RUN(test_cn_id_valid);
    RUN(test_cn_id_x_check);
    RUN(test_cn_id_bad_checksum);
    RUN(test_cn_id_bad_dates);
    RUN(test_cn_id_bad_shape);
    RUN(test_mobile_zh_glued);
    RUN(test_mobile_separators);
    RUN(test_mobile_country_code);
    RUN(test_mobile_same_value_same_placeholder);
    RUN(test_mobile_numbering);
    RUN(test_mobile_fullwidth);
    RUN(test_mobile_fullwidth_same_as_ascii);
    RUN(test_mobile_english);
    RUN(test_mobile_not_mobile_prefix);
    RUN(test_mobile_order_numbers);
    RUN(test_mobile_amounts_and_units);
    RUN(test_mobile_inside_longer_things);
    RUN(test_phone_international);
    RUN(test_phone_nanp);
    RUN(test_phone_spaces_need_cue);
    RUN(test_phone_cn_landline);
    RUN(test_phone_cued_local);
    RUN(test_phone_policy_off);
    RUN(test_email_basic);
    RUN(test_email_case_insensitive_dedup);
    RUN(test_email_cjk_glued);
    RUN(test_email_han_domain);
    RUN(test_email_sentence_end);
    RUN(test_email_not_addresses);
    RUN(test_id_found_zh);
    RUN(test_id_found_en_and_glued);
    RUN(test_id_x_lowercase_same_value);
    RUN(test_id_bad_checksum_left_alone);
    RUN(test_id_bad_date_left_alone);
    RUN(test_id_fullwidth);
    RUN(test_id_policy_off_not_a_card);
    RUN(test_card_grouped_spaces);
    RUN(test_card_19_contiguous);
    RUN(test_card_dashes_and_same_value);
    RUN(test_card_amex_15);
    RUN(test_card_luhn_failure_left_alone);
    RUN(test_card_issuer_prefix);
    RUN(test_card_order_context);
    RUN(test_card_timestamps_left_alone);
    RUN(test_secret_password_en);
    RUN(test_secret_pwd_is);
    RUN(test_secret_zh);
    RUN(test_secret_zh_prose_left_alone);
    RUN(test_secret_api_keys);
    RUN(test_secret_tokens);
    RUN(test_secret_aws);
    RUN(test_secret_jwt);
    RUN(test_secret_private_key);
    RUN(test_secret_private_key_unterminated);
    RUN(test_secret_connection_string);
    RUN(test_secret_env_and_connstr_keys);
    RUN(test_secret_every_occurrence);
    RUN(test_secret_otp);
    RUN(test_secret_quoted);
    RUN(test_secret_holds_phone_digits);
    RUN(test_secret_prose_left_alone);
    RUN(test_secret_policy_off);
    RUN(test_secret_never_kept);
    RUN(test_fp_amounts_dates_versions_zh);
    RUN(test_fp_amounts_dates_versions_en);
    RUN(test_fp_ids_and_codes);
    RUN(test_fp_long_plain_numbers);
    RUN(test_mixed_all_kinds_zh);
    RUN(test_mixed_all_kinds_en);
    RUN(test_order_in_items);
    RUN(test_every_literal_occurrence);
    RUN(test_fuzz_regressions);
    RUN(test_list_of_numbers);
    RUN(test_many_repeats_stay_linear);
    RUN(test_idempotent);
    RUN(test_existing_placeholders_continue_numbering);
    RUN(test_invalid_utf8_passes_through);
    RUN(test_embedded_nul);
    RUN(test_empty_and_misuse);
    RUN(test_fast_path_copy);
    RUN(test_type_names_and_default_policy);
    RUN(test_nomem_every_allocation);
    RUN(test_id15_zh_en);
    RUN(test_ssn_en_zh);
    RUN(test_iban_en_zh);
    RUN(test_passport_en_zh);
    RUN(test_secret_han_value);
    RUN(test_secret_owned_and_bounded);
    RUN(test_new_kinds_policy);
    am__redact_result_free(NULL, &R);
    TEST_MAIN_END();
}
