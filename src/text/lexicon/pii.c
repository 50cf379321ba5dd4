/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lexicon/pii.c -- the PII detector's words (text/redact.c): the names
 * of secrets ("password", "密码") with the kind of value they announce, the
 * connectors between a name and its value ("是：", "is") with their
 * strength, the words that follow "password:" and are never one, the
 * context cues that make a number a phone, a card, an ID or none (an order
 * number), and the units that make it an amount.  Kinds, strengths and
 * classes are the AM__LEX_SECRET_*, AM__LEX_CONN_* and AM__LEX_NUM_* codes
 * of lexicon.h.
 */
#include "text/lexicon/lexicon.h"

/* Names of secrets, English and Chinese, and the kind of value they name. */
const am__lex_secret_cue am__lex_pii_secret_en[] = {
    {"secret access key", AM__LEX_SECRET_PWD},
    {"access key secret", AM__LEX_SECRET_PWD},
    {"access key", AM__LEX_SECRET_PWD},
    {"secret key", AM__LEX_SECRET_PWD},
    {"client secret", AM__LEX_SECRET_PWD},
    {"app secret", AM__LEX_SECRET_PWD},
    {"api secret", AM__LEX_SECRET_PWD},
    {"api key", AM__LEX_SECRET_PWD},
    {"api token", AM__LEX_SECRET_TOKEN},
    {"access token", AM__LEX_SECRET_TOKEN},
    {"auth token", AM__LEX_SECRET_TOKEN},
    {"refresh token", AM__LEX_SECRET_TOKEN},
    {"session token", AM__LEX_SECRET_TOKEN},
    {"private key", AM__LEX_SECRET_PWD},
    {"passphrase", AM__LEX_SECRET_PWD},
    {"passcode", AM__LEX_SECRET_PWD},
    {"password", AM__LEX_SECRET_PWD},
    {"passwd", AM__LEX_SECRET_PWD},
    {"pwd", AM__LEX_SECRET_PWD},
    {"pw", AM__LEX_SECRET_PWD},
    {"secret", AM__LEX_SECRET_PWD},
    {"token", AM__LEX_SECRET_TOKEN},
    {"bearer", AM__LEX_SECRET_BEARER},
    {"pin\xe7\xa0\x81", AM__LEX_SECRET_CODE},
    {"pin code", AM__LEX_SECRET_CODE},
    {"pin", AM__LEX_SECRET_CODE},
    {"otp", AM__LEX_SECRET_CODE},
    {"verification code", AM__LEX_SECRET_CODE},
    {"security code", AM__LEX_SECRET_CODE},
    {"cvv2", AM__LEX_SECRET_CODE},
    {"cvv", AM__LEX_SECRET_CODE},
    {"cvc", AM__LEX_SECRET_CODE},
};

const am__lex_secret_cue am__lex_pii_secret_zh[] = {
    {"密码", AM__LEX_SECRET_PWD},    {"密碼", AM__LEX_SECRET_PWD},
    {"口令", AM__LEX_SECRET_PWD},    {"密钥", AM__LEX_SECRET_PWD},
    {"密鑰", AM__LEX_SECRET_PWD},    {"秘钥", AM__LEX_SECRET_PWD},
    {"私钥", AM__LEX_SECRET_PWD},    {"令牌", AM__LEX_SECRET_PWD},
    {"授权码", AM__LEX_SECRET_PWD},  {"提取码", AM__LEX_SECRET_PWD},
    {"验证码", AM__LEX_SECRET_CODE}, {"驗證碼", AM__LEX_SECRET_CODE},
    {"安全码", AM__LEX_SECRET_CODE}, {"动态码", AM__LEX_SECRET_CODE},
};

/* Connectors between a secret's name and its value. */
const am__lex_conn am__lex_pii_connectors[] = {
    {"是：", AM__LEX_CONN_STRONG, 0},   {"是:", AM__LEX_CONN_STRONG, 0},
    {"为：", AM__LEX_CONN_STRONG, 0},   {"为:", AM__LEX_CONN_STRONG, 0},
    {"改成了", AM__LEX_CONN_STRONG, 0}, {"改成", AM__LEX_CONN_STRONG, 0},
    {"改为", AM__LEX_CONN_STRONG, 0},   {"设置为", AM__LEX_CONN_STRONG, 0},
    {"设置成", AM__LEX_CONN_STRONG, 0}, {"设为", AM__LEX_CONN_STRONG, 0},
    {"设成", AM__LEX_CONN_STRONG, 0},   {"换成", AM__LEX_CONN_STRONG, 0},
    {"变成", AM__LEX_CONN_STRONG, 0},   {"更新为", AM__LEX_CONN_STRONG, 0},
    {"也是", AM__LEX_CONN_STRONG, 0},   {"都是", AM__LEX_CONN_STRONG, 0},
    {"还是", AM__LEX_CONN_STRONG, 0},   {"就是", AM__LEX_CONN_STRONG, 0},
    {"是", AM__LEX_CONN_STRONG, 0},     {"为", AM__LEX_CONN_STRONG, 0},
    {"為", AM__LEX_CONN_STRONG, 0},     {"：", AM__LEX_CONN_STRONG, 0},
    {"=>", AM__LEX_CONN_STRONG, 0},     {"->", AM__LEX_CONN_STRONG, 0},
    {":", AM__LEX_CONN_STRONG, 0},      {"=", AM__LEX_CONN_STRONG, 0},
    {"is", AM__LEX_CONN_WEAK, 1},       {"was", AM__LEX_CONN_WEAK, 1},
    {"are", AM__LEX_CONN_WEAK, 1},      {"to", AM__LEX_CONN_WEAK, 2},
    {"be", AM__LEX_CONN_WEAK, 1},
};

/* Words that follow "password:" in forms and prose, never as a value. */
const char *const am__lex_pii_stop_values[] = {
    "none",    "null",    "nil",     "empty",   "required",  "optional", "hidden",  "redacted",
    "unknown", "changed", "reset",   "expired", "incorrect", "invalid",  "correct", "wrong",
    "same",    "here",    "below",   "above",   "protected", "saved",    "stored",  "encrypted",
    "hashed",  "set",     "updated", "needed",  "missing",   "weak",     "strong",  "long",
    "short",   "ok",      "okay",    "n/a",     "na",        "tbd",      "todo",    "xxx",
    /* function words and states: "my secret is that ...", "is safe" */
    "that",    "this",    "what",    "which",   "very",      "really",   "quite",   "still",
    "just",    "also",    "safe",    "secure",  "simple",    "easy",     "hard",    "private",
    "mine",    "yours",   "known",   "kept",    "gone",      "out",      "with",    "from",
    "about",   "being",   "something", "nothing", "between",
};

/* Leading characters of a Chinese value that make it prose, not a
 * password: question words ("密码是多少"), negation ("是不是"), modal and
 * degree words ("太简单", "要改"), pronoun subjects of a clause, particles. */
const char *const am__lex_pii_stop_values_zh[] = {
    "什么", "多少", "啥", "几", "哪", "怎", "谁", "吗", "不", "没", "否", "错", "对",
    "正确", "必", "要", "需", "可", "能", "会", "应", "很", "太", "挺", "比", "还",
    "也", "都", "在", "由", "用", "被", "给", "让", "从", "跟", "和", "与", "已",
    "您", "你", "他", "她", "它", "空", "一样", "相同", "保密", "忘", "加密", "隐藏",
    "的", "了", "着", "过", "这", "那", "同", "原来", "之前", "以前", "默认",
};

/* Owners before a secret's name: "my password is x" declares a value, so
 * a plain word after "is" counts. */
const char *const am__lex_pii_owners[] = {"my", "our", "his", "her", "their", "your"};

/* Context cues for numbers: a phone, a bank card, an ID, or none. */
const am__lex_num_cue am__lex_pii_number_cues[] = {
    {"电话", AM__LEX_NUM_PHONE, 0},
    {"電話", AM__LEX_NUM_PHONE, 0},
    {"手机", AM__LEX_NUM_PHONE, 0},
    {"手機", AM__LEX_NUM_PHONE, 0},
    {"联系", AM__LEX_NUM_PHONE, 0},
    {"聯繫", AM__LEX_NUM_PHONE, 0},
    {"致电", AM__LEX_NUM_PHONE, 0},
    {"拨打", AM__LEX_NUM_PHONE, 0},
    {"打给", AM__LEX_NUM_PHONE, 0},
    {"来电", AM__LEX_NUM_PHONE, 0},
    {"座机", AM__LEX_NUM_PHONE, 0},
    {"固话", AM__LEX_NUM_PHONE, 0},
    {"热线", AM__LEX_NUM_PHONE, 0},
    {"传真", AM__LEX_NUM_PHONE, 0},
    {"微信", AM__LEX_NUM_PHONE, 0},
    {"短信", AM__LEX_NUM_PHONE, 0},
    {"phone", AM__LEX_NUM_PHONE, 0},
    {"mobile", AM__LEX_NUM_PHONE, 0},
    {"cell", AM__LEX_NUM_PHONE, 1},
    {"call", AM__LEX_NUM_PHONE, 1},
    {"tel", AM__LEX_NUM_PHONE, 2},
    {"fax", AM__LEX_NUM_PHONE, 2},
    {"whatsapp", AM__LEX_NUM_PHONE, 1},
    {"text me", AM__LEX_NUM_PHONE, 1},
    {"contact", AM__LEX_NUM_PHONE, 1},
    {"reach me", AM__LEX_NUM_PHONE, 1},
    {"dial", AM__LEX_NUM_PHONE, 1},
    {"工资卡", AM__LEX_NUM_BANK, 0},
    {"卡号", AM__LEX_NUM_BANK, 0},
    {"银行", AM__LEX_NUM_BANK, 0},
    {"信用卡", AM__LEX_NUM_BANK, 0},
    {"储蓄卡", AM__LEX_NUM_BANK, 0},
    {"借记卡", AM__LEX_NUM_BANK, 0},
    {"账号", AM__LEX_NUM_BANK, 0},
    {"账户", AM__LEX_NUM_BANK, 0},
    {"帐号", AM__LEX_NUM_BANK, 0},
    {"帐户", AM__LEX_NUM_BANK, 0},
    {"银联", AM__LEX_NUM_BANK, 0},
    {"card", AM__LEX_NUM_BANK, 1},
    {"account", AM__LEX_NUM_BANK, 1},
    {"acct", AM__LEX_NUM_BANK, 2},
    {"visa", AM__LEX_NUM_BANK, 2},
    {"mastercard", AM__LEX_NUM_BANK, 1},
    {"身份", AM__LEX_NUM_ID, 0},
    {"证件", AM__LEX_NUM_ID, 0},
    {"公民", AM__LEX_NUM_ID, 0},
    {"identity", AM__LEX_NUM_ID, 1},
    {"护照", AM__LEX_NUM_PASSPORT, 0},
    {"護照", AM__LEX_NUM_PASSPORT, 0},
    {"passport", AM__LEX_NUM_PASSPORT, 1},
    {"passeport", AM__LEX_NUM_PASSPORT, 1},
    {"reisepass", AM__LEX_NUM_PASSPORT, 1},
    {"社会安全号", AM__LEX_NUM_SSN, 0},
    {"社会保障号", AM__LEX_NUM_SSN, 0},
    {"社安号", AM__LEX_NUM_SSN, 0},
    {"ssn", AM__LEX_NUM_SSN, 2},
    {"social security", AM__LEX_NUM_SSN, 1},
    {"social insurance", AM__LEX_NUM_SSN, 1},
    {"订单", AM__LEX_NUM_NEG, 0},
    {"单号", AM__LEX_NUM_NEG, 0},
    {"编号", AM__LEX_NUM_NEG, 0},
    {"流水", AM__LEX_NUM_NEG, 0},
    {"工号", AM__LEX_NUM_NEG, 0},
    {"学号", AM__LEX_NUM_NEG, 0},
    {"序列号", AM__LEX_NUM_NEG, 0},
    {"快递", AM__LEX_NUM_NEG, 0},
    {"运单", AM__LEX_NUM_NEG, 0},
    {"物流", AM__LEX_NUM_NEG, 0},
    {"发票", AM__LEX_NUM_NEG, 0},
    {"合同", AM__LEX_NUM_NEG, 0},
    {"批次", AM__LEX_NUM_NEG, 0},
    {"版本", AM__LEX_NUM_NEG, 0},
    {"账单", AM__LEX_NUM_NEG, 0},
    {"票号", AM__LEX_NUM_NEG, 0},
    {"车次", AM__LEX_NUM_NEG, 0},
    {"航班", AM__LEX_NUM_NEG, 0},
    {"型号", AM__LEX_NUM_NEG, 0},
    {"金额", AM__LEX_NUM_NEG, 0},
    {"价格", AM__LEX_NUM_NEG, 0},
    {"总价", AM__LEX_NUM_NEG, 0},
    {"合计", AM__LEX_NUM_NEG, 0},
    {"余额", AM__LEX_NUM_NEG, 0},
    {"工资", AM__LEX_NUM_NEG, 0},
    {"收入", AM__LEX_NUM_NEG, 0},
    {"￥", AM__LEX_NUM_NEG, 0},
    {"¥", AM__LEX_NUM_NEG, 0},
    {"$", AM__LEX_NUM_NEG, 0},
    {"€", AM__LEX_NUM_NEG, 0},
    {"£", AM__LEX_NUM_NEG, 0},
    {"#", AM__LEX_NUM_NEG, 0},
    {"№", AM__LEX_NUM_NEG, 0},
    {"qq", AM__LEX_NUM_NEG, 2},
    {"order", AM__LEX_NUM_NEG, 1},
    {"invoice", AM__LEX_NUM_NEG, 1},
    {"tracking", AM__LEX_NUM_NEG, 1},
    {"serial", AM__LEX_NUM_NEG, 1},
    {"ref", AM__LEX_NUM_NEG, 2},
    {"reference", AM__LEX_NUM_NEG, 1},
    {"txn", AM__LEX_NUM_NEG, 2},
    {"transaction", AM__LEX_NUM_NEG, 1},
    {"receipt", AM__LEX_NUM_NEG, 1},
    {"isbn", AM__LEX_NUM_NEG, 1},
    {"sku", AM__LEX_NUM_NEG, 2},
    {"id", AM__LEX_NUM_IDW, 2},
    {"no.", AM__LEX_NUM_NEG, 1},
    {"ticket", AM__LEX_NUM_NEG, 1},
    {"booking", AM__LEX_NUM_NEG, 1},
    {"confirmation", AM__LEX_NUM_NEG, 1},
    {"shipment", AM__LEX_NUM_NEG, 1},
    {"parcel", AM__LEX_NUM_NEG, 1},
    {"version", AM__LEX_NUM_NEG, 1},
    {"build", AM__LEX_NUM_NEG, 2},
    {"rmb", AM__LEX_NUM_NEG, 2},
    {"usd", AM__LEX_NUM_NEG, 2},
    {"cny", AM__LEX_NUM_NEG, 2},
};

/* Units after a number that make it an amount or a count. */
const char *const am__lex_pii_units_zh[] = {"元",   "块",   "万", "亿", "千", "百", "円", "%", "％",
                                            "美元", "港币", "分", "角", "次", "个", "人", "年"};

const char *const am__lex_pii_units_en[] = {"yuan", "rmb", "usd", "dollars", "bucks", "percent"};
