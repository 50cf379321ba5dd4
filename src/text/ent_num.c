/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ent_num.c -- numerals (Arabic, Chinese, English words), money, percents
 * and plain numbers.  Values are exact decimals (ent_dec), never floats, so
 * "1.1万" is 11000 and "3.5亿" is 350000000 to the digit.
 */
#include <string.h>

#include "text/ent_internal.h"

/* ------------------------------------------------------------- decimals */

int ent_dec_scale(ent_dec *v, int k)
{
    if (v->m == 0) return 1;
    v->e += k;
    /* Keep the mantissa small by folding trailing zeros into e. */
    while (v->e < 0 && v->m % 10 == 0) {
        v->m /= 10;
        v->e++;
    }
    return v->e > -30 && v->e < 30;
}

int ent_dec_mul(ent_dec *v, int64_t k)
{
    if (k == 0 || v->m == 0) {
        v->m = 0;
        v->e = 0;
        return 1;
    }
    if (v->m > ENT_DEC_MAX / k || v->m < -ENT_DEC_MAX / k) return 0;
    v->m *= k;
    return 1;
}

static int64_t pow10i(int k)
{
    int64_t p = 1;
    while (k-- > 0) p *= 10;
    return p;
}

int ent_dec_add(ent_dec *a, ent_dec b)
{
    if (b.m == 0) return 1;
    if (a->m == 0) {
        *a = b;
        return 1;
    }
    /* Align to the smaller exponent. */
    while (a->e > b.e) {
        if (a->m > ENT_DEC_MAX / 10 || a->m < -ENT_DEC_MAX / 10) return 0;
        a->m *= 10;
        a->e--;
    }
    while (b.e > a->e) {
        if (b.m > ENT_DEC_MAX / 10 || b.m < -ENT_DEC_MAX / 10) return 0;
        b.m *= 10;
        b.e--;
    }
    a->m += b.m;
    return a->m < ENT_DEC_MAX && a->m > -ENT_DEC_MAX;
}

int ent_dec_int(ent_dec v, int64_t *out)
{
    if (v.e < 0) {
        if (v.e < -17) return 0;
        int64_t p = pow10i(-v.e);
        if (v.m % p != 0) return 0;
        *out = v.m / p;
        return 1;
    }
    if (v.e > 17) return 0;
    int64_t p = pow10i(v.e);
    if (v.m > INT64_MAX / p || v.m < -(INT64_MAX / p)) return 0;
    *out = v.m * p;
    return 1;
}

void ent_dec_fmt(ent_dec v, char *buf, size_t cap)
{
    char digits[40];
    size_t nd = 0, o = 0;
    uint64_t m = v.m < 0 ? (uint64_t)0 - (uint64_t)v.m : (uint64_t)v.m;
    int e = v.e;
    if (cap == 0) return;
    while (m != 0 && m % 10 == 0 && e < 0) {
        m /= 10;
        e++;
    }
    do {
        digits[nd++] = (char)('0' + m % 10);
        m /= 10;
    } while (m != 0 && nd < sizeof digits);
    if (v.m == 0) e = 0;
#define PUT(ch) do { if (o + 1 < cap) buf[o++] = (ch); } while (0)
    if (v.m < 0) PUT('-');
    if (e >= 0) {
        while (nd > 0) PUT(digits[--nd]);
        for (int k = 0; k < e; k++) PUT('0');
    } else {
        size_t frac = (size_t)-e;
        if (nd <= frac) {
            PUT('0');
            PUT('.');
            for (size_t k = nd; k < frac; k++) PUT('0');
            while (nd > 0) PUT(digits[--nd]);
        } else {
            while (nd > frac) PUT(digits[--nd]);
            PUT('.');
            while (nd > 0) PUT(digits[--nd]);
        }
    }
#undef PUT
    buf[o] = '\0';
}

/* ------------------------------------------------------------- numerals */

int ent_zh_numeral_cp(uint32_t cp, int *digit, int64_t *unit)
{
    *digit = 0;
    *unit = 0;
    switch (cp) {
    case 0x96F6: case 0x3007: *digit = 0; return 1;           /* 零 〇 */
    case 0x4E00: case 0x58F9: *digit = 1; return 1;           /* 一 壹 */
    case 0x4E8C: case 0x8D30: case 0x4E24: *digit = 2; return 1; /* 二 贰 两 */
    case 0x4E09: case 0x53C1: *digit = 3; return 1;           /* 三 叁 */
    case 0x56DB: case 0x8086: *digit = 4; return 1;           /* 四 肆 */
    case 0x4E94: case 0x4F0D: *digit = 5; return 1;           /* 五 伍 */
    case 0x516D: case 0x9646: *digit = 6; return 1;           /* 六 陆 */
    case 0x4E03: case 0x67D2: *digit = 7; return 1;           /* 七 柒 */
    case 0x516B: case 0x634C: *digit = 8; return 1;           /* 八 捌 */
    case 0x4E5D: case 0x7396: *digit = 9; return 1;           /* 九 玖 */
    case 0x5341: case 0x62FE: *unit = 10; return 1;           /* 十 拾 */
    case 0x767E: case 0x4F70: *unit = 100; return 1;          /* 百 佰 */
    case 0x5343: case 0x4EDF: *unit = 1000; return 1;         /* 千 仟 */
    case 0x4E07: *unit = 10000; return 1;                     /* 万 */
    case 0x4EBF: *unit = 100000000; return 1;                 /* 亿 */
    default: return 0;
    }
}

/* One Chinese numeral character at i (see ent_zh_numeral_cp).  Returns its
 * end or 0. */
static size_t zh_numeral(const ent_ctx *c, size_t i, int *digit, int64_t *unit)
{
    unsigned b = ent_at(c, i);
    uint32_t cp;
    if (b < 0xE3 || b > 0xE9 || i + 3 > c->n) return 0;
    if (ent_cp(c, i, &cp) != 3) return 0;
    return ent_zh_numeral_cp(cp, digit, unit) ? i + 3 : 0;
}

static size_t zh_num_at(const ent_ctx *c, size_t i, ent_dec *v, int *flags)
{
    int64_t total = 0, section = 0, num = -1, last_unit = 0;
    int prev_digit = 0, zero = 0, ntok = 0, first_one = 0;
    size_t j = i, end = i;
    for (;;) {
        int d;
        int64_t u;
        size_t e = zh_numeral(c, j, &d, &u);
        if (!e) break;
        if (u == 0) {
            if (prev_digit && (*flags & ENT_N_UNIT)) {
                if (!(zero && num == 0)) break; /* "一百二三": stop */
                num = d;                         /* "一百零五" */
            } else if (prev_digit) {
                if (num > 100000000000LL) break;
                num = num * 10 + d;
                *flags |= ENT_N_CONCAT;
            } else {
                num = d;
                if (d == 0) zero = 1;
                if (ntok == 0 && d == 1) first_one = 1;
            }
            prev_digit = 1;
        } else {
            if (*flags & ENT_N_CONCAT) break;
            int64_t n = num < 0 ? 0 : num;
            if (u == 10) {
                section += (num < 0 ? 1 : num) * 10;
            } else if (u < 10000) {
                if (num < 0) {
                    if (ntok == 0) return 0; /* "千万", "百分" */
                    break;
                }
                section += num * u;
            } else if (u == 10000) {
                if (section > 1000000000000LL) return 0;
                if (num < 0 && section == 0) {
                    if (ntok == 0) return 0; /* "万一" */
                    break;
                }
                total += (section + n) * 10000;
                section = 0;
            } else {
                int64_t t = total + section + n;
                if (t == 0) {
                    if (ntok == 0) return 0;
                    break;
                }
                if (t > 100000000LL) return 0;
                total = t * 100000000LL;
                section = 0;
            }
            if (total > ENT_DEC_MAX || section > ENT_DEC_MAX) return 0;
            last_unit = u;
            num = -1;
            prev_digit = 0;
            zero = 0;
            *flags |= ENT_N_UNIT;
        }
        ntok++;
        j = end = e;
        if (u >= 10000) *flags |= ENT_N_MAG;
        else *flags &= ~ENT_N_MAG;
    }
    if (ntok == 0) return 0;
    if (num >= 0 && last_unit >= 100 && !zero && !(*flags & ENT_N_CONCAT))
        num *= last_unit / 10; /* colloquial: 三千五 = 3500, 一万二 = 12000 */
    v->m = total + section + (num < 0 ? 0 : num);
    v->e = 0;
    *flags |= ENT_N_HAN;
    if (ntok == 1 && first_one) *flags |= ENT_N_LONE_ONE;
    return end;
}

/* Magnitude characters after Arabic digits: "3千万", "1.5亿", "50w". */
static size_t arabic_magnitude(const ent_ctx *c, size_t j, ent_dec *v,
                               int *flags)
{
    for (int rounds = 0; rounds < 3; rounds++) {
        int d;
        int64_t u;
        size_t e = zh_numeral(c, j, &d, &u);
        if (e && u >= 100) {
            int k = u == 100 ? 2 : u == 1000 ? 3 : u == 10000 ? 4 : 8;
            if (!ent_dec_scale(v, k)) return 0;
            *flags |= ENT_N_UNIT;
            if (u >= 10000) *flags |= ENT_N_MAG;
            else *flags &= ~ENT_N_MAG;
            j = e;
            continue;
        }
        break;
    }
    if (!(*flags & ENT_N_UNIT)) {
        unsigned ch = ent_at(c, j);
        if ((ch == 'k' || ch == 'K') && !ent_isalpha(ent_at(c, j + 1))) {
            if (!ent_dec_scale(v, 3)) return 0;
            *flags |= ENT_N_UNIT;
            j++;
        } else if ((ch == 'w' || ch == 'W') && !ent_isalpha(ent_at(c, j + 1))) {
            if (!ent_dec_scale(v, 4)) return 0;
            *flags |= ENT_N_UNIT | ENT_N_MAG;
            j++;
        }
    }
    return j;
}

/* Arabic digits at i, whatever precedes them. */
static size_t arabic_at(const ent_ctx *c, size_t i, ent_dec *v, int *flags)
{
    size_t j = i;
    int nd = 0;
    int64_t m = 0;
    while (ent_isdigit(ent_at(c, j))) {
        if (++nd > 17) return 0; /* an identifier, not a number */
        m = m * 10 + (ent_at(c, j) - '0');
        j++;
        /* "1,200,000": a comma followed by exactly three digits. */
        if (ent_at(c, j) == ',' && nd <= 3 + 3 * 5 &&
            ent_isdigit(ent_at(c, j + 1)) && ent_isdigit(ent_at(c, j + 2)) &&
            ent_isdigit(ent_at(c, j + 3)) && !ent_isdigit(ent_at(c, j + 4)))
            j++;
    }
    int e = 0;
    if (ent_at(c, j) == '.' && ent_isdigit(ent_at(c, j + 1))) {
        j++;
        while (ent_isdigit(ent_at(c, j))) {
            if (++nd > 17) return 0;
            m = m * 10 + (ent_at(c, j) - '0');
            e--;
            j++;
        }
        *flags |= ENT_N_DECIMAL;
        /* "2.3.1", "192.168.1.1": versions and addresses. */
        if (ent_at(c, j) == '.' && ent_isdigit(ent_at(c, j + 1))) return 0;
    }
    v->m = m;
    v->e = 0;
    if (!ent_dec_scale(v, e)) return 0;
    *flags |= ENT_N_ARABIC;
    return arabic_magnitude(c, j, v, flags);
}

size_t ent_num_at(const ent_ctx *c, size_t i, ent_dec *v, int *flags)
{
    *flags = 0;
    v->m = 0;
    v->e = 0;
    unsigned b = ent_at(c, i);
    if (!ent_isdigit(b)) return zh_num_at(c, i, v, flags);
    if (i > 0) {
        unsigned p = (unsigned char)c->s[i - 1];
        if (ent_isalnum(p) || p == '_') return 0;
        if ((p == '.' || p == ',') && i > 1 &&
            ent_isdigit((unsigned char)c->s[i - 2]))
            return 0;
    }
    return arabic_at(c, i, v, flags);
}

size_t ent_int_at(const ent_ctx *c, size_t i, int lo, int hi, int *val)
{
    unsigned b = ent_at(c, i);
    int64_t x;
    size_t j = i;
    if (ent_isdigit(b)) {
        if (i > 0 && ent_isdigit((unsigned char)c->s[i - 1])) return 0;
        x = 0;
        while (ent_isdigit(ent_at(c, j)) && j - i < 5) {
            x = x * 10 + (ent_at(c, j) - '0');
            j++;
        }
        if (j - i > 4 || ent_isdigit(ent_at(c, j))) return 0;
    } else {
        ent_dec v;
        int fl = 0;
        j = zh_num_at(c, i, &v, &fl);
        if (!j || (fl & (ENT_N_CONCAT | ENT_N_MAG))) return 0;
        if (!ent_dec_int(v, &x)) return 0;
    }
    if (x < lo || x > hi) return 0;
    *val = (int)x;
    return j;
}

/* English numbers in words. */
static const char *const en_ones[] = {
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
    "sixteen", "seventeen", "eighteen", "nineteen", NULL};
static const char *const en_tens[] = {"twenty", "thirty", "forty", "fifty",
                                      "sixty", "seventy", "eighty", "ninety",
                                      NULL};
static const char *const en_scales[] = {"hundred", "thousand", "million",
                                        "billion", NULL};

static size_t en_num_word(const ent_ctx *c, size_t i, int *kind, int *val)
{
    int k;
    size_t e;
    if ((e = ent_words(c, i, en_ones, &k)) != 0) {
        *kind = 0;
        *val = k;
        return e;
    }
    if ((e = ent_words(c, i, en_tens, &k)) != 0) {
        *kind = 1;
        *val = (k + 2) * 10;
        return e;
    }
    if ((e = ent_words(c, i, en_scales, &k)) != 0) {
        static const int scale[] = {2, 3, 6, 9};
        *kind = 2;
        *val = scale[k];
        return e;
    }
    return 0;
}

size_t ent_en_num_at(const ent_ctx *c, size_t i, ent_dec *v, int allow_a)
{
    unsigned b = ent_lower(ent_at(c, i));
    /* First letters of zero..ninety, hundred.. and "a"/"an". */
    if (!b || !strchr("zotfsenhmba", (int)b) || !ent_wstart(c, i)) return 0;
    int64_t total = 0, cur = 0;
    int any = 0, kind, val;
    size_t j = i, end = 0, e;
    if (allow_a) {
        if ((e = ent_word(c, i, "a")) != 0 || (e = ent_word(c, i, "an")) != 0) {
            size_t k = ent_sp(c, e);
            size_t e2;
            if ((e2 = ent_word(c, k, "couple")) != 0) {
                size_t k2 = ent_sp(c, e2);
                size_t e3 = ent_word(c, k2, "of");
                v->m = 2;
                v->e = 0;
                return e3 ? e3 : e2;
            }
            /* "a hundred", "a thousand" fall through to the scales. */
            if (en_num_word(c, k, &kind, &val) && kind == 2) {
                cur = 1;
                any = 1;
                j = k;
            } else {
                v->m = 1;
                v->e = 0;
                return e;
            }
        }
    }
    for (;;) {
        e = en_num_word(c, j, &kind, &val);
        if (!e) break;
        if (kind == 0) {
            if (any && cur % 100 != 0 && cur % 10 != 0) break;
            cur += val;
        } else if (kind == 1) {
            if (any && cur % 100 != 0) break;
            cur += val;
            if (ent_at(c, e) == '-' && en_num_word(c, e + 1, &kind, &val) &&
                kind == 0 && val > 0 && val < 10) {
                e = en_num_word(c, e + 1, &kind, &val);
                cur += val;
            }
        } else {
            if (!any || cur > ENT_DEC_MAX / 1000000000 ||
                total > ENT_DEC_MAX / 10)
                break; /* "two hundred hundred hundred ..." */
            if (val == 2) {
                cur = (cur ? cur : 1) * 100;
            } else {
                total += (cur ? cur : 1) * pow10i(val);
                cur = 0;
            }
        }
        any = 1;
        end = e;
        /* Next word: after blanks, a hyphen, or "and" ("two hundred and five"). */
        size_t k = ent_sp(c, e);
        if (k == e && ent_at(c, k) != '-') break;
        if (ent_at(c, k) == '-') k++;
        size_t a = ent_word(c, k, "and");
        if (a) k = ent_sp(c, a);
        if (!en_num_word(c, k, &kind, &val)) break;
        j = k;
    }
    if (!any) return 0;
    v->m = total + cur;
    v->e = 0;
    return end;
}

/* --------------------------------------------------------------- money */

static const struct {
    const char *s;
    const char *code;
} cur_prefix[] = {
    {"US$", "USD"}, {"HK$", "HKD"}, {"$", "USD"}, {"\xC2\xA5", "CNY"},
    {"\xEF\xBF\xA5", "CNY"}, {"\xE2\x82\xAC", "EUR"}, {"\xC2\xA3", "GBP"},
    {"RMB", "CNY"}, {"CNY", "CNY"}, {"USD", "USD"}, {"EUR", "EUR"},
    {"GBP", "GBP"}, {"JPY", "JPY"}, {"HKD", "HKD"}};

static const char *const zh_cur[] = {"元", "块钱", "块", "圆", "人民币",
                                     "美元", "美金", "欧元", "英镑", "日元",
                                     "港币", "港元", "韩元", NULL};
static const char *const zh_cur_code[] = {"CNY", "CNY", "CNY", "CNY", "CNY",
                                          "USD", "USD", "EUR", "GBP", "JPY",
                                          "HKD", "HKD", "KRW"};
static const char *const en_cur[] = {"dollars", "dollar", "bucks", "usd",
                                     "rmb",     "cny",    "yuan",  "euros",
                                     "euro",    "eur",    "pounds", "gbp",
                                     "yen",     "jpy",    "hkd",   NULL};
static const char *const en_cur_code[] = {"USD", "USD", "USD", "USD", "CNY",
                                          "CNY", "CNY", "EUR", "EUR", "EUR",
                                          "GBP", "GBP", "JPY", "JPY", "HKD"};

/* Single-character measure words after a Chinese numeral: "三家", "两个". */
static int is_classifier(const ent_ctx *c, size_t i, size_t *end)
{
    static const char *const multi[] = {"小时", "钟头", "分钟", "星期", "礼拜",
                                        "公里", "千米", "厘米", "毫米", "平米",
                                        "公斤", "千克", "毫升", NULL};
    static const char single[] =
    /* sorted by code point: in_set3 searches it */
    "个人件份位余倍元克分列包匹升单双口句只台号名吨周回场块处多天头套字季家对"
    "层届岁年度座张成户所批把折支斤日月期本条杯架栋棵次款段毛片瓶盒碗票种秒章"
    "笔箱篇米类粒级组股艘节行袋角趟轮辆遍道部里门间队集页项颗题首";
    size_t e = ent_lits(c, i, multi, NULL);
    if (e) {
        if (end) *end = e;
        return 1;
    }
    if (i + 3 > c->n || ent_at(c, i) < 0xE4) return 0;
    if (!ent_in_set3(c->s + i, single)) return 0;
    if (end) *end = i + 3;
    return 1;
}

/* "M"/"B"/"million"/"billion"/"thousand" after a number in a money or
 * number context. */
static size_t magnitude_word(const ent_ctx *c, size_t j, ent_dec *v,
                             int letters)
{
    static const char *const w[] = {"million", "billion", "thousand", "mn",
                                    "bn", "m", "b", NULL};
    static const int k[] = {6, 9, 3, 6, 9, 6, 9};
    int idx;
    size_t e = ent_words(c, j, w, &idx);
    if (e && idx >= 3) {
        /* Letters right after the digits, money only: "$5m", "$3bn". */
        if (!letters || j == 0 || !ent_isdigit((unsigned char)c->s[j - 1]))
            return 0;
    }
    if (!e) {
        size_t s = ent_sp(c, j);
        if (s == j) return 0;
        e = ent_words(c, s, w, &idx);
        if (!e || idx >= 3) return 0;
    }
    if (!ent_dec_scale(v, k[idx])) return 0;
    return e;
}

static void amount_norm(am__entity *e, const char *code, ent_dec v)
{
    char num[48];
    ent_dec_fmt(v, num, sizeof num);
    e->type = AM_ENT_AMOUNT;
    if (code) {
        size_t l = strlen(code);
        memcpy(e->norm, code, l);
        e->norm[l] = ' ';
        memcpy(e->norm + l + 1, num, strlen(num) + 1);
    } else {
        memcpy(e->norm, num, strlen(num) + 1);
    }
}

/* A currency word/character after a number at j; *code set. */
static size_t currency_suffix(const ent_ctx *c, size_t j, const char **code)
{
    int k;
    size_t e = ent_lits(c, j, zh_cur, &k);
    if (e) {
        if (k == 2) { /* "块": money unless a noun follows ("三块蛋糕") */
            uint32_t cp;
            int d;
            int64_t u;
            ent_cp(c, e, &cp);
            if (cp >= 0x4E00 && cp <= 0x9FFF && !zh_numeral(c, e, &d, &u))
                return 0;
        }
        *code = zh_cur_code[k];
        return e;
    }
    size_t s = ent_sp(c, j);
    e = ent_words(c, s, en_cur, &k);
    if (e) {
        *code = en_cur_code[k];
        return e;
    }
    return 0;
}

size_t ent_amount_at(const ent_ctx *c, size_t i, am__entity *e)
{
    unsigned b = ent_at(c, i);
    ent_dec v;
    int fl;
    size_t j, end;
    const char *code = NULL;

    /* Currency first: "$50k", "¥1,200", "RMB 5000", "US$3.5 million". */
    for (size_t k = 0; k < sizeof cur_prefix / sizeof *cur_prefix; k++) {
        if ((unsigned char)cur_prefix[k].s[0] != b) continue;
        j = ent_lit(c, i, cur_prefix[k].s);
        if (!j) continue;
        if (ent_isalpha(b) && !ent_wstart(c, i)) return 0;
        size_t s = ent_sp(c, j);
        if (ent_isalpha(b) && s == j && !ent_isdigit(ent_at(c, s))) continue;
        if (!ent_isdigit(ent_at(c, s))) continue;
        fl = 0;
        end = arabic_at(c, s, &v, &fl);
        if (!end) continue;
        size_t m = magnitude_word(c, end, &v, 1);
        if (m) end = m;
        /* "¥500元": the suffix repeats the currency. */
        const char *code2;
        size_t sfx = currency_suffix(c, end, &code2);
        if (sfx && strcmp(code2, cur_prefix[k].code) == 0) end = sfx;
        amount_norm(e, cur_prefix[k].code, v);
        return end;
    }

    /* Number then currency: "5千元", "两千块", "500 USD", "two hundred dollars". */
    if (ent_isdigit(b) || b >= 0xE3) {
        end = ent_num_at(c, i, &v, &fl);
        if (!end || (fl & ENT_N_CONCAT)) return 0;
        if (fl & ENT_N_ARABIC) {
            size_t m = magnitude_word(c, end, &v, 0);
            if (m) end = m;
        }
    } else if (ent_isalpha(b)) {
        end = ent_en_num_at(c, i, &v, 1);
        if (!end) return 0;
        fl = 0;
        size_t m = magnitude_word(c, end, &v, 0);
        if (m) end = m;
    } else {
        return 0;
    }
    j = currency_suffix(c, end, &code);
    if (j) {
        amount_norm(e, code, v);
        return j;
    }
    /* A bare "50万" / "3.5亿" / "5w" is money unless a measure word follows
     * ("50万人"). */
    if ((fl & ENT_N_MAG) && !is_classifier(c, end, NULL)) {
        amount_norm(e, NULL, v);
        return end;
    }
    return 0;
}

/* ------------------------------------------------------------- percents */

size_t ent_percent_at(const ent_ctx *c, size_t i, am__entity *e)
{
    unsigned b = ent_at(c, i);
    ent_dec v;
    int fl;
    size_t end = 0, j;

    if ((j = ent_lit(c, i, "百分之")) != 0) {
        end = ent_num_at(c, j, &v, &fl);
        if (!end) return 0;
        /* "百分之三点五" */
        size_t p = ent_lit(c, end, "点");
        if (p && (fl & ENT_N_HAN)) {
            int d, e10 = 0;
            int64_t u;
            size_t q = p;
            ent_dec frac = {0, 0};
            size_t r;
            while ((r = zh_numeral(c, q, &d, &u)) != 0 && u == 0 && e10 > -6) {
                frac.m = frac.m * 10 + d;
                e10--;
                q = r;
            }
            if (q > p) {
                frac.e = e10;
                if (ent_dec_add(&v, frac)) end = q;
            }
        }
    } else if (ent_isdigit(b) || b >= 0xE3) {
        end = ent_num_at(c, i, &v, &fl);
        if (!end || (fl & ENT_N_CONCAT)) return 0;
        j = ent_sp(c, end);
        if (ent_at(c, j) == '%') {
            end = j + 1;
        } else if ((j = ent_lit(c, j, "\xEF\xBC\x85")) != 0) { /* ％ */
            end = j;
        } else if ((fl & ENT_N_ARABIC) &&
                   ((j = ent_word(c, ent_sp(c, end), "percent")) != 0 ||
                    (j = ent_word(c, ent_sp(c, end), "pct")) != 0)) {
            end = j;
        } else {
            return 0;
        }
    } else if (ent_isalpha(b)) {
        end = ent_en_num_at(c, i, &v, 0);
        if (!end) return 0;
        j = ent_word(c, ent_sp(c, end), "percent");
        if (!j) return 0;
        end = j;
    } else {
        return 0;
    }
    if (!ent_dec_scale(&v, -2)) return 0;
    e->type = AM_ENT_PERCENT;
    ent_dec_fmt(v, e->norm, sizeof e->norm);
    return end;
}

/* -------------------------------------------------------------- numbers */

size_t ent_number_at(const ent_ctx *c, size_t i, am__entity *e)
{
    unsigned b = ent_at(c, i);
    ent_dec v;
    int fl;
    size_t end;
    if (ent_isdigit(b)) {
        /* The pieces of a date-like token ("2025-02-30", "10/45") that no
         * date matcher took are not numbers. */
        if (i > 1 && (c->s[i - 1] == '-' || c->s[i - 1] == '/') &&
            ent_isdigit((unsigned char)c->s[i - 2]))
            return 0;
        end = ent_num_at(c, i, &v, &fl);
        if (!end) return 0;
        if (end - i > 10 && !(fl & ENT_N_DECIMAL)) {
            size_t k = i;
            while (k < end && ent_isdigit(ent_at(c, k))) k++;
            if (k - i > 10) return 0; /* phone numbers, ids */
        }
        if ((ent_at(c, end) == '-' || ent_at(c, end) == '/') &&
            ent_isdigit(ent_at(c, end + 1)) && end - i == 4)
            return 0;
        /* "2月29日" in a year without one, "13月": no date, no number */
        if (ent_lit(c, end, "月") || ent_prev_cp(c, i) == 0x6708 /* 月 */)
            return 0;
        size_t m = magnitude_word(c, end, &v, 0);
        if (m) {
            end = m;
        } else if (ent_isalpha(ent_at(c, end))) {
            /* Ordinals count; "5km", "3D", "x86" are not numbers here. */
            static const char *const ord[] = {"st", "nd", "rd", "th", NULL};
            size_t o = ent_words(c, end, ord, NULL);
            if (!o || (fl & ENT_N_DECIMAL)) return 0;
            end = o;
        }
    } else if (b >= 0xE3) {
        end = ent_num_at(c, i, &v, &fl);
        if (!end || (fl & (ENT_N_CONCAT | ENT_N_LONE_ONE))) return 0;
        if (ent_lit(c, i, "十分")) return 0; /* "十分重要": very */
        if (!(fl & ENT_N_UNIT) && !is_classifier(c, end, NULL)) return 0;
    } else if (ent_isalpha(b)) {
        end = ent_en_num_at(c, i, &v, 0);
        if (!end) return 0;
        if (v.m == 1 && v.e == 0) return 0; /* "one" is mostly a pronoun */
        size_t m = magnitude_word(c, end, &v, 0);
        if (m) end = m;
    } else {
        return 0;
    }
    e->type = AM_ENT_NUMBER;
    ent_dec_fmt(v, e->norm, sizeof e->norm);
    return end;
}
