# SPDX-License-Identifier: Apache-2.0
"""The Python client against a live `agentmem serve` and the embedded
library (run by tests/sh/clients_python.sh, which starts the server and
sets the environment):

  AGENTMEM_URL        the server
  AGENTMEM_TOKEN_A/B  tokens of users AGENTMEM_USER_A / AGENTMEM_USER_B
  AGENTMEM_TOKEN_C    a token of AGENTMEM_USER_C, a user with no history
                      (the conversation compared with the embedded one)
  AGENTMEM_LIB        libagentmem.so
  AGENTMEM_TMP        a directory for the embedded store files

Missing variables are a failure, not a skip: a suite that silently tests
nothing would pass in CI.
"""

import os
import subprocess
import sys
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import agentmem  # noqa: E402
from agentmem import AgentmemError, InvalidArgument  # noqa: E402


def env(name):
    v = os.environ.get(name)
    if not v:
        raise RuntimeError(f"{name} is not set: run tests/sh/clients_python.sh")
    return v


def fresh_db():
    return os.path.join(env("AGENTMEM_TMP"), f"e-{uuid.uuid4().hex}.db")


def shape(v):
    """v's structure: keys and value types, not values (lists: the shape of
    each element)."""
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(x) for x in v]
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return type(v).__name__


TEXTS = {
    "zh": ("以后周报都按已完成、进行中、下周计划三段写", "帮我写这周的周报", "三段",
           "以后周报都按两段写：本周和下周", "我住在杭州", "周报"),
    "en": ("From now on, always send reports as PDF", "How should I send the report?", "PDF",
           "From now on, always send reports as Word files", "I live in Lyon", "weekly report"),
}


def conversation(mem, lang, tag):
    """Every method once, in lang; returns {method: result} for comparison.
    tag keeps sessions, tasks and ids apart between runs on one store."""
    rule, ask, needle, corrected, fact, task = TEXTS[lang]
    task = f"{task}-{tag}"
    s = f"s-{tag}"
    out = {"health": mem.health()}
    out["add"] = mem.add(rule, session=s, task=task, agent="planner", source="user",
                         type="preference_declare", domain="reporting",
                         at="2026-03-05T16:00:00+08:00", id=f"c-{tag}")
    assert out["add"]["memories_created"] == 1 and not out["add"]["existing"], out["add"]
    again = mem.add(rule, session=s, task=task, agent="planner", source="user",
                    type="preference_declare", domain="reporting",
                    at="2026-03-05T16:00:00+08:00", id=f"c-{tag}")
    assert again["existing"] and again["event_id"] == out["add"]["event_id"], again
    out["add_many"] = mem.add_many([
        {"text": fact, "session": s, "at": "2026-03-05T16:01:00Z"},
        {"text": ask, "session": s, "task": task, "source": "user", "at": "2026-03-05T16:02:00Z"}])
    assert len(out["add_many"]["results"]) == 2
    chat = mem.add([{"role": "user", "content": fact},
                    {"role": "assistant", "content": corrected, "name": "planner"}],
                   session=s, at="2026-03-05T16:01:30Z")
    assert len(chat["results"]) == 2 and chat["results"][0]["event_id"] < chat["results"][1]["event_id"], chat
    out["recall"] = mem.recall(ask, session=s, task=task, domain="reporting",
                               as_of="2026-03-06T00:00:00Z", budget=400)
    assert needle in out["recall"]["block"], out["recall"]["block"]
    # the rule is a preference: the system prompt's part holds it, the history's does not
    assert needle in out["recall"]["block_system"], out["recall"]
    assert needle not in out["recall"]["block_context"], out["recall"]
    out["task"] = mem.task(task)
    assert out["task"]["task_id"] == task, out["task"]
    mems = mem.memories()
    rule_mem = next(m for m in mems if m["text"] == rule)
    out["memories"] = [rule_mem]
    out["feedback_confirm"] = mem.feedback(rule_mem["id"], "confirm")
    # confirm made a new version: the lineage id names the item whatever its version
    out["feedback_correct"] = mem.feedback(rule_mem["lineage_id"], "correct", text=corrected)
    # the profile card shows the corrected value only, and the fact
    out["profile"] = mem.profile()
    lines = out["profile"]["text"].splitlines()
    assert any(line.endswith(corrected) for line in lines), out["profile"]
    assert not any(line.endswith(rule) for line in lines), out["profile"]
    assert any(line.endswith(fact) for line in lines), out["profile"]
    assert out["profile"]["tokens"] <= out["profile"]["budget_tokens"] == 400, out["profile"]
    small = mem.profile(budget=10)
    assert small["tokens"] <= 10 and small["left_out"] >= 1, small
    out["versions"] = mem.versions(rule_mem["id"])
    texts = [v["text"] for v in out["versions"]["versions"]]
    assert texts[0] == rule and corrected in texts, texts
    out["memories_all"] = [m for m in mem.memories(all=True, as_of="2026-12-31T00:00:00Z")
                           if m["lineage_id"] == rule_mem["lineage_id"]]
    exported = mem.export()
    assert exported["format"] == "agentmem-export", exported.keys()
    assert any(e["content"] == fact for e in exported["events"])
    out["export_keys"] = sorted(exported)
    # one memory by id: add, supersede by key, get by an earlier version, update, delete
    first = mem.add_memory(fact + " (1)", kind="fact", key=f"note.{tag}")["memory"]
    second = mem.add_memory(fact + " (2)", kind="fact", key=f"note.{tag}")["memory"]
    assert second["lineage_id"] == first["lineage_id"], (first, second)
    got = mem.get_memory(first["id"])
    assert got["memory"]["text"] == fact + " (2)" and len(got["versions"]) >= 2, got
    out["get_memory"] = got
    out["update_memory"] = mem.update_memory(first["id"], corrected)
    assert out["update_memory"]["memory"]["text"] == corrected, out["update_memory"]
    assert out["feedback_confirm"]["memory"]["lineage_id"] == rule_mem["lineage_id"]
    out["delete_memory"] = mem.delete_memory(first["lineage_id"])
    assert out["delete_memory"]["deleted"] >= 3, out["delete_memory"]
    try:
        mem.get_memory(first["lineage_id"])
        raise AssertionError("a deleted memory is still there")
    except AgentmemError as e:
        assert e.code == "not_found", e
    out["forget"] = mem.forget("session", id=s)
    assert out["forget"]["events"] >= 3, out["forget"]
    assert not any(m["text"] == fact for m in mem.memories()), "forgotten fact still listed"
    return out


class Methods:
    """The same checks on either transport (self.mem, self.other_user)."""

    def test_every_method_zh(self):
        conversation(self.mem, "zh", uuid.uuid4().hex[:8])

    def test_every_method_en(self):
        conversation(self.mem, "en", uuid.uuid4().hex[:8])

    def test_add_memory_expires_at(self):
        """expires_at (a string or an aware datetime) shows in the memory
        (zh, en); a past, zoneless or non-time one is refused naming it."""
        import datetime as dt
        t = uuid.uuid4().hex[:8]
        soon = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) + dt.timedelta(days=2)
        utc = soon.strftime("%Y-%m-%dT%H:%M:%SZ")
        m = self.mem.add_memory(f"会议室{t}在装修", kind="fact", expires_at=soon)["memory"]
        self.assertEqual(m["expires_at"], utc)
        self.assertEqual(m["version_state"], "current")
        m = self.mem.add_memory(f"Desk {t} is booked", kind="fact",
                                expires_at=soon.astimezone(dt.timezone(dt.timedelta(hours=-5))).isoformat())["memory"]
        self.assertEqual(m["expires_at"], utc)
        self.assertIsNone(self.mem.add_memory(f"I prefer aisle seats {t}")["memory"]["expires_at"])
        past = (soon - dt.timedelta(days=3)).isoformat()
        for bad in (past, "2030-01-01T00:00:00", "next tuesday"):
            with self.assertRaises(InvalidArgument) as cm:
                self.mem.add_memory(f"Parking {t} level 3", expires_at=bad)
            self.assertEqual(cm.exception.field, "expires_at", bad)
        with self.assertRaises(ValueError):
            self.mem.add_memory("x", expires_at=dt.datetime(2030, 1, 1))
        self.assertFalse(any(f"Parking {t}" in x["text"] for x in self.mem.memories(all=True)))

    def test_bad_fields_are_named(self):
        cases = [
            (lambda: self.mem.add(7), "text"),
            (lambda: self.mem.add("时间不带时区", at="2026-03-05T16:00:00"), "at"),
            (lambda: self.mem.add("x", task=5), "task"),
            (lambda: self.mem.add_many([{"text": "fine"}, {"text": "bad", "bogus": 1}]),
             "events[1].bogus"),
            (lambda: self.mem.add_many([]), "events"),
            (lambda: self.mem.add([]), "messages"),
            (lambda: self.mem.add([{"role": "user", "content": "好"}, {"role": "bot", "content": "x"}]),
             "messages[1].role"),
            (lambda: self.mem.add([{"role": "assistant"}]), "messages[0].content"),
            (lambda: self.mem.recall("x", budget=0), "budget"),
            (lambda: self.mem.recall("x", k="many"), "k"),
            (lambda: self.mem.recall(""), "query"),
            (lambda: self.mem.feedback("01AAAAAAAAAAAAAAAAAAAAAAAA", "frobnicate"), "action"),
            (lambda: self.mem.feedback("01AAAAAAAAAAAAAAAAAAAAAAAA", "correct"), "text"),
            (lambda: self.mem.forget("galaxy"), "level"),
            (lambda: self.mem.forget("task"), "id"),
            (lambda: self.mem.forget("task", id="x", grace=-5), "grace"),
            (lambda: self.mem.memories(as_of="昨天"), "as_of"),
            (lambda: self.mem.add("半个字符 \ud800 broken"), "text"),
            (lambda: self.mem.add_many([{"text": "ok"}, {"text": "x", "session": "\udfff"}]),
             "events[1].session"),
            (lambda: self.mem.add("NUL 字符\0inside"), "text"),
            (lambda: self.mem.recall("x", as_of="2026-03-05T16:00:00"), "as_of"),
            (lambda: self.mem.profile(budget=0), "budget"),
            (lambda: self.mem.profile(budget=100001), "budget"),
            (lambda: self.mem.profile(budget="many"), "budget"),
        ]
        before = len(self.mem.export()["events"]) if self.has_data() else 0
        for call, field in cases:
            with self.subTest(field=field):
                with self.assertRaises(AgentmemError) as cm:
                    call()
                e = cm.exception
                self.assertEqual((e.code, e.field, e.status), ("invalid_request", field, 400),
                                 e.message)
                self.assertTrue(e.message)
        after = len(self.mem.export()["events"]) if self.has_data() else 0
        self.assertEqual(before, after, "a refused request wrote something")

    def test_events_pages_and_search(self):
        tag = uuid.uuid4().hex[:8]
        for i in range(5):
            self.mem.add(f"第{i}条记录 {tag}" if i % 2 else f"note number {i} {tag}", session="ev-" + tag)
        page = self.mem.events(limit=2, session="ev-" + tag)
        self.assertEqual(len(page["events"]), 2)
        self.assertTrue(page["next_cursor"])
        seen = [e["id"] for e in page["events"]]
        while page["next_cursor"]:
            page = self.mem.events(limit=2, cursor=page["next_cursor"], session="ev-" + tag)
            seen += [e["id"] for e in page["events"]]
        self.assertEqual(len(seen), 5)
        self.assertEqual(len(set(seen)), 5)
        found = self.mem.events(q="第3条记录", session="ev-" + tag)["events"]
        self.assertEqual([e["content"] for e in found], [f"第3条记录 {tag}"])
        some = self.mem.events(ids=seen[:2])["events"]
        self.assertEqual(sorted(e["id"] for e in some), sorted(seen[:2]))
        with self.assertRaises(AgentmemError) as cm:
            self.mem.events(limit=0)
        self.assertEqual(cm.exception.field, "limit")

    def test_not_found(self):
        for call in (lambda: self.mem.task("没有这个任务"), lambda: self.mem.versions("NOPE")):
            with self.assertRaises(AgentmemError) as cm:
                call()
            self.assertEqual((cm.exception.code, cm.exception.status), ("not_found", 404))

    def test_naming_another_user_is_refused(self):
        secret = f"我的银行卡密码提示是蓝色海豚 {uuid.uuid4().hex[:6]}"
        self.other.add(secret, session="b")
        self.other.add("My locker code is 4417, keep it private", session="b")
        calls = [lambda: self.mem.recall("银行卡", user=self.other_user),
                 lambda: self.mem.memories(user=self.other_user),
                 lambda: self.mem.export(user=self.other_user),
                 lambda: self.mem.add("hi", user=self.other_user),
                 lambda: self.mem.task("b", user=self.other_user),
                 lambda: self.mem.profile(user=self.other_user),
                 lambda: self.mem.forget("user", user=self.other_user)]
        for call in calls:
            with self.assertRaises(AgentmemError) as cm:
                call()
            self.assertEqual((cm.exception.code, cm.exception.field, cm.exception.status),
                             ("forbidden", "user", 403))
            self.assertNotIn("蓝色海豚", cm.exception.message)
        # and nothing of the other user reaches this one's reads
        seen = repr([self.mem.recall("银行卡密码提示是什么？"), self.mem.recall("what is my locker code?"),
                     self.mem.memories(all=True), self.mem.export(), self.mem.profile()]
                    if self.has_data()
                    else [self.mem.recall("银行卡密码提示是什么？"), self.mem.recall("locker code"),
                          self.mem.profile()])
        self.assertNotIn("蓝色海豚", seen)
        # (the whole phrase: four digits alone can occur inside a random ULID)
        self.assertNotIn("code is 4417", seen)
        self.assertIn("蓝色海豚", repr(self.other.recall("银行卡密码提示是什么？")))

    def has_data(self):
        try:
            self.mem.export()
            return True
        except AgentmemError as e:
            if e.code == "not_found":  # a user with no events has no export
                return False
            raise

    def test_example_runs(self):
        ex = os.path.join(HERE, "..", "examples", "agent_loop.py")
        r = subprocess.run([sys.executable, ex, *self.example_args, "--session",
                            "loop-" + uuid.uuid4().hex[:6]], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        turns = r.stdout.split("--- turn ")
        self.assertEqual(len(turns), 5, r.stdout)
        self.assertIn("三段", turns[2])   # turn 2 was given turn 1's rule
        self.assertIn("PDF", turns[4])    # turn 4 was given turn 3's rule
        self.assertIn("agent: (echo)", turns[4])


class HttpTest(Methods, unittest.TestCase):
    def setUp(self):
        self.mem = agentmem.connect(env("AGENTMEM_URL"), token=env("AGENTMEM_TOKEN_A"))
        self.other = agentmem.connect(env("AGENTMEM_URL"), token=env("AGENTMEM_TOKEN_B"))
        self.other_user = env("AGENTMEM_USER_B")
        self.example_args = ["--url", env("AGENTMEM_URL"), "--token", env("AGENTMEM_TOKEN_A")]

    def test_bad_token_is_401(self):
        for token in ("amk_" + "A" * 43, "not a token", ""):
            bad = agentmem.connect(env("AGENTMEM_URL"), token=token)
            with self.assertRaises(AgentmemError) as cm:
                bad.recall("你好")
            self.assertEqual((cm.exception.code, cm.exception.status), ("unauthorized", 401))
        self.assertEqual(agentmem.connect(env("AGENTMEM_URL"), token="x").health()["status"], "ok")

    def test_unreachable_server(self):
        with self.assertRaises(AgentmemError) as cm:
            agentmem.connect("http://127.0.0.1:9", token="t", timeout=5).health()
        self.assertEqual((cm.exception.code, cm.exception.status), ("unavailable", None))


class EmbeddedTest(Methods, unittest.TestCase):
    def setUp(self):
        path = fresh_db()
        self.mem = agentmem.open_embedded(path, user=env("AGENTMEM_USER_A"), lib=env("AGENTMEM_LIB"))
        self.other_user = "用户乙"
        self.other = agentmem.open_embedded(path, user=self.other_user, lib=env("AGENTMEM_LIB"))
        self.example_args = ["--db", fresh_db(), "--user", "loop-user"]

    def tearDown(self):
        self.mem.close()
        self.other.close()

    def test_import_round_trip(self):
        self.mem.add("以后周报都按三段写", session="imp")
        self.mem.add("I prefer reports in PDF", session="imp")
        doc = self.mem.export()
        dst = agentmem.open_embedded(fresh_db(), user=env("AGENTMEM_USER_A"), lib=env("AGENTMEM_LIB"))
        try:
            info = dst.import_export(doc)
            self.assertEqual(info["events"], len(doc["events"]))
            self.assertEqual(sorted(m["text"] for m in dst.memories()),
                             sorted(m["text"] for m in self.mem.memories()))
            with self.assertRaises(AgentmemError):
                dst.import_export(doc)  # a user with data: refused
            info = dst.import_export([{"id": "m1", "memory": "用户喜欢喝乌龙茶"},
                                      {"id": "m2", "memory": "The user is vegetarian"}],
                                     from_="mem0")
            self.assertEqual(info["memories"], 2)
            with self.assertRaises(AgentmemError) as cm:
                dst.import_export({"bogus": 1}, from_="other")
            self.assertEqual(cm.exception.field, "from")
        finally:
            dst.close()

    def test_closed_client(self):
        self.mem.close()
        with self.assertRaises(AgentmemError):
            self.mem.recall("x")


class SameShapes(unittest.TestCase):
    """The same conversation over HTTP (a user with no history) and
    embedded (a fresh file): the same shapes, the same blocks."""

    def test_same_conversation_same_shapes(self):
        http = agentmem.connect(env("AGENTMEM_URL"), token=env("AGENTMEM_TOKEN_C"))
        with agentmem.open_embedded(fresh_db(), user=env("AGENTMEM_USER_C"),
                                    lib=env("AGENTMEM_LIB")) as emb:
            for lang in ("zh", "en"):
                a, b = conversation(http, lang, lang), conversation(emb, lang, lang)
                for method in a:
                    with self.subTest(lang=lang, method=method):
                        self.assertEqual(shape(a[method]), shape(b[method]))
                self.assertEqual(a["recall"]["block"], b["recall"]["block"])
                self.assertEqual(a["recall"]["block_system"], b["recall"]["block_system"])
                self.assertEqual(a["recall"]["block_context"], b["recall"]["block_context"])
                # task_ref is a keyed hash of the store's own key: the two stores differ
                self.assertRegex(a["task"].pop("task_ref"), r"^t[0-9a-f]{16}$")
                self.assertRegex(b["task"].pop("task_ref"), r"^t[0-9a-f]{16}$")
                self.assertEqual(a["task"], b["task"])
                self.assertEqual(a["forget"], b["forget"])
                self.assertEqual(sorted(a["profile"]["text"].splitlines()),
                                 sorted(b["profile"]["text"].splitlines()))
                self.assertEqual([v["text"] for v in a["versions"]["versions"]],
                                 [v["text"] for v in b["versions"]["versions"]])


if __name__ == "__main__":
    unittest.main()
