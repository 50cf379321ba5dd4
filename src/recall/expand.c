/*
 * expand.c -- query rewriting by synonyms and near-words (F21): "那个单子"
 * should find "订单", "行程安排" should find "出差", "cc" should find
 * "抄送".  Groups are data; a query that contains any member of a group
 * gets every other member's tokens as extra (lower-weight) terms.
 * Matching is on the normalised query, so groups are written normalised
 * (lower case, half-width).
 */
#include <string.h>

#include "recall/recall.h"

static const char *const groups[][8] = {
    /* Chinese near-words */
    {"单子", "订单", "工单", NULL},
    {"行程", "出差", "差旅", "日程", NULL},
    {"抄送", "cc", NULL},
    {"周报", "工作总结", "weekly report", NULL},
    {"日报", "daily report", NULL},
    {"月报", "monthly report", NULL},
    {"开会", "会议", "例会", "meeting", NULL},
    {"尽快", "赶紧", "加急", "urgent", "asap", NULL},
    {"收尾", "完成", "交付", "弄完", NULL},
    {"预算", "经费", "budget", NULL},
    {"报价", "询价", "quote", "quotation", NULL},
    {"供应商", "厂商", "vendor", "supplier", NULL},
    {"合同", "协议", "contract", NULL},
    {"发票", "invoice", NULL},
    {"报销", "reimbursement", "expense", NULL},
    {"机票", "航班", "flight", NULL},
    {"酒店", "住宿", "hotel", NULL},
    {"电话", "手机", "phone", NULL},
    {"邮件", "邮箱", "email", "mail", NULL},
    {"表格", "excel", "spreadsheet", NULL},
    {"幻灯片", "ppt", "slides", NULL},
    {"老板", "领导", "上司", "boss", "manager", NULL},
    {"同事", "colleague", "coworker", NULL},
    {"生日", "birthday", NULL},
    {"孩子", "小孩", "儿子", "女儿", "kids", "children", NULL},
    {"医生", "大夫", "doctor", NULL},
    /* English near-words */
    {"trip", "travel", "itinerary", "journey", NULL},
    {"kid", "child", "son", "daughter", NULL},
    {"job", "work", "career", "上班", "工作", "职业", NULL},
    {"hobby", "hobbies", "pastime", NULL},
    {"pet", "dog", "cat", NULL},
    {"car", "vehicle", NULL},
    {"movie", "film", NULL},
    {"book", "novel", NULL},
    {"sport", "sports", "game", NULL},
    {"mom", "mother", "妈妈", "母亲", "老妈", NULL},
    {"dad", "father", "爸爸", "父亲", "老爸", NULL},
    {"married", "wedding", "husband", "wife", NULL},
};

static int has_phrase(const char *s, size_t n, const char *p)
{
    size_t m = strlen(p);
    int ascii = (unsigned char)p[0] < 0x80;
    for (size_t i = 0; i + m <= n; i++) {
        if (memcmp(s + i, p, m) != 0) continue;
        if (!ascii) return 1;
        /* ASCII members match whole words only */
        int left = i == 0 || !((s[i - 1] | 0x20) >= 'a' && (s[i - 1] | 0x20) <= 'z');
        int right = i + m == n || !((s[i + m] | 0x20) >= 'a' && (s[i + m] | 0x20) <= 'z');
        if (left && right) return 1;
    }
    return 0;
}

int am__expand_query(const char *norm, size_t n, am__buf *out)
{
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
        int hit = 0;
        for (size_t k = 0; groups[g][k] && !hit; k++) hit = has_phrase(norm, n, groups[g][k]);
        if (!hit) continue;
        for (size_t k = 0; groups[g][k]; k++) {
            if (has_phrase(norm, n, groups[g][k])) continue;
            am__buf_addc(out, ' ');
            am__buf_adds(out, groups[g][k]);
        }
    }
    return out->oom ? AM_NOMEM : AM_OK;
}
