# SPDX-License-Identifier: Apache-2.0
"""agentmem.Memory (mem0's method names) against a live `agentmem serve`
(an admin token: one object for many users; a user token: its own user
only) and embedded (one store file, many users).  Run by
tests/sh/clients_python.sh, which sets the environment (test_clients.py)."""

import os
import sys
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import agentmem  # noqa: E402
from agentmem import (AgentmemError, Forbidden, InvalidArgument, Memory, NotFound,  # noqa: E402
                      Unauthorized, Unavailable)


def env(name):
    v = os.environ.get(name)
    if not v:
        raise RuntimeError(f"{name} is not set: run tests/sh/clients_python.sh")
    return v


TEXTS = {
    "zh": {"fact": "我住在杭州", "moved": "我上个月搬到成都了", "ask": "我住在哪里？", "city": "成都",
           "habit": "我每天早上跑步", "stop": "我不再早上跑步了，膝盖疼", "edit": "我住在西安"},
    "en": {"fact": "I live in Hangzhou", "moved": "Actually I moved to Lyon last month",
           "ask": "Where do I live?", "city": "Lyon", "habit": "I run every morning before work",
           "stop": "I stopped running in the mornings, my knee hurts", "edit": "I live in Paris"},
}


class MemoryMethods:
    """Every method on self.m (one object, many users)."""

    def users(self):
        t = uuid.uuid4().hex[:6]
        return f"u1-{t}", f"用户二-{t}"

    def check_every_method(self, lang):
        x = TEXTS[lang]
        u1, u2 = self.users()
        added = self.m.add(x["fact"], user_id=u1, metadata={"project": "apollo", "n": 3})
        self.assertEqual([r["event"] for r in added["results"]], ["ADD"], added)
        first = added["results"][0]
        self.assertEqual((first["memory"], first["user_id"]), (x["fact"], u1))
        self.assertEqual(first["metadata"], {"project": "apollo", "n": 3})
        self.assertEqual(len(added["events"]), 1)
        # chat messages: the user's correction updates the same memory (its id stays)
        chat = self.m.add([{"role": "user", "content": x["moved"]},
                           {"role": "assistant", "content": "好的" if lang == "zh" else "Noted."}],
                          user_id=u1, agent_id="helper", session_id="s1")
        self.assertEqual(len(chat["events"]), 2)
        upd = [r for r in chat["results"] if r["event"] == "UPDATE"]
        self.assertEqual(len(upd), 1, chat)
        self.assertEqual((upd[0]["id"], upd[0]["memory"], upd[0]["previous_memory"]),
                         (first["id"], x["moved"], x["fact"]))
        # the same object, another user: nothing of u1 is seen
        self.m.add(x["habit"], user_id=u2, metadata={"project": "zeus"})
        self.assertEqual(self.m.get_all(user_id=u2)["results"][0]["memory"], x["habit"])
        self.assertFalse([r for r in self.m.get_all(user_id=u2)["results"]
                          if r["memory"] in (x["fact"], x["moved"])])
        # an invalidation: the closed memory is a DELETE
        stop = self.m.add(x["stop"], user_id=u2)
        self.assertEqual([r["event"] for r in stop["results"]], ["DELETE"], stop)
        self.assertEqual(stop["results"][0]["memory"], x["habit"])
        self.assertEqual(self.m.get_all(user_id=u2)["results"], [])
        # search: results, block, events
        s = self.m.search(x["ask"], user_id=u1)
        self.assertEqual(s["results"][0]["id"], first["id"])
        self.assertIsInstance(s["results"][0]["score"], float)
        self.assertIn(x["city"], s["block"])
        self.assertTrue(s["events"])
        self.assertEqual(self.m.search(x["ask"], user_id=u1, limit=1)["results"][0]["id"], first["id"])
        self.assertEqual(self.m.search(x["ask"], user_id=u1, filters={"project": "zeus"})["results"], [])
        self.assertEqual(len(self.m.search(x["ask"], user_id=u1,
                                           filters={"metadata": {"project": ["zeus", "apollo"]},
                                                    "kind": ["profile", "fact"]})["results"]), 1)
        self.assertNotIn(x["city"], self.m.search(x["ask"], user_id=u2)["block"])
        # get, get_all with filters, pages
        got = self.m.get(first["id"], user_id=u1)
        self.assertEqual((got["memory"], got["metadata"]["project"]), (x["moved"], "apollo"))
        self.assertEqual(self.m.get(upd[0]["version_id"], user_id=u1)["id"], first["id"])
        for i in range(3):
            self.m.client.add_memory(f"{x['fact']} #{i}", kind="fact", key=f"note.{i}",
                                     user=u1)
        every = self.m.get_all(user_id=u1)["results"]
        self.assertEqual(len(every), 4)
        self.assertEqual(len(self.m.get_all(user_id=u1, limit=2)["results"]), 2)
        self.assertEqual([r["id"] for r in self.m.get_all(user_id=u1, filters={"n": 3})["results"]],
                         [first["id"]])
        self.assertEqual(len(self.m.get_all(user_id=u1, filters={"kind": "fact"})["results"]), 3)
        self.assertEqual(len(self.m.get_all(user_id=u1, filters={"kind": ["fact", "profile"]},
                                            limit=3)["results"]), 3)
        self.assertEqual(self.m.get_all(user_id=u1, filters={"project": ["zeus"]})["results"], [])
        # update (text and metadata), history
        u = self.m.update(first["id"], x["edit"], metadata={"project": "apollo", "reviewed": True},
                          user_id=u1)
        self.assertEqual(u["message"], "Memory updated successfully!")
        self.assertEqual((u["memory"]["id"], u["memory"]["memory"]), (first["id"], x["edit"]))
        h = self.m.history(first["id"], user_id=u1)
        self.assertEqual([r["event"] for r in h], ["ADD", "UPDATE", "UPDATE"], h)
        self.assertEqual([r["new_memory"] for r in h], [x["fact"], x["moved"], x["edit"]])
        self.assertEqual(h[2]["old_memory"], x["moved"])
        self.assertTrue(h[2]["metadata"]["reviewed"])
        # the profile card: the current value only, in the user's language, within a budget
        p = self.m.profile(user_id=u1)
        lines = p["text"].splitlines()
        self.assertEqual(lines[0], "[用户画像]" if lang == "zh" else "[User profile]", p)
        self.assertEqual(p["lang"], lang)
        self.assertTrue(any(line.endswith(x["edit"]) for line in lines), p)
        self.assertFalse([line for line in lines if line.endswith((x["fact"], x["moved"]))], p)
        self.assertEqual(self.m.profile(user_id=u1), p, "two cards of one state differ")
        small = self.m.profile(user_id=u1, budget=15)
        self.assertLessEqual(small["tokens"], 15)
        self.assertGreaterEqual(small["left_out"], 1)
        # u2's only item was invalidated: an empty card, nothing of u1
        p2 = self.m.profile(user_id=u2)
        self.assertEqual((p2["items"], p2["text"]), (0, ""), p2)
        # delete: then get is NotFound, history is empty
        d = self.m.delete(first["id"], user_id=u1)
        self.assertGreaterEqual(d["deleted"], 3)
        with self.assertRaises(NotFound) as cm:
            self.m.get(first["id"], user_id=u1)
        self.assertEqual(cm.exception.status, 404)
        self.assertIsInstance(cm.exception, AgentmemError)
        # delete_all forgets the user; the other user keeps everything
        self.assertEqual(len(self.m.get_all(user_id=u1)["results"]), 3)
        gone = self.m.delete_all(user_id=u1)
        self.assertGreaterEqual(gone["events"], 3)
        self.assertEqual(self.m.get_all(user_id=u1)["results"], [])
        self.assertTrue(self.m.search(x["stop"], user_id=u2)["events"])

    def test_every_method_zh(self):
        self.check_every_method("zh")

    def test_every_method_en(self):
        self.check_every_method("en")

    def test_errors_are_typed(self):
        u1, _ = self.users()
        cases = [
            (lambda: self.m.add([{"role": "bot", "content": "x"}], user_id=u1), "messages[0].role"),
            (lambda: self.m.add([], user_id=u1), "messages"),
            (lambda: self.m.add(7, user_id=u1), "messages"),
            (lambda: self.m.add("半个字符 \ud800", user_id=u1), "text"),
            (lambda: self.m.add("x", user_id=u1, metadata={"project": ["a"]}), "metadata"),
            (lambda: self.m.add([{"role": "user", "content": "好"}], user_id=u1,
                                metadata={"bad key": 1}), "metadata"),
            (lambda: self.m.search("", user_id=u1), "query"),
            (lambda: self.m.search("x", user_id=u1, limit=0), "limit"),
            (lambda: self.m.search("x", user_id=u1, filters={"kind": 5}), "filters"),
            (lambda: self.m.get_all(user_id=u1, filters={"from": "昨天"}), "filters"),
            (lambda: self.m.get("", user_id=u1), "memory_id"),
            (lambda: self.m.update("01AAAAAAAAAAAAAAAAAAAAAAAA", 5, user_id=u1), "text"),
            (lambda: self.m.profile(user_id=u1, budget=0), "budget"),
            (lambda: self.m.profile(user_id=u1, budget=100001), "budget"),
            (lambda: self.m.profile(user_id=u1, budget="400"), "budget"),
        ]
        for call, field in cases:
            with self.subTest(field=field):
                with self.assertRaises(InvalidArgument) as cm:
                    call()
                self.assertEqual((cm.exception.code, cm.exception.field, cm.exception.status),
                                 ("invalid_request", field, 400), cm.exception.message)
                self.assertIsInstance(cm.exception, ValueError)
        self.assertEqual(self.m.get_all(user_id=u1)["results"], [], "a refused add wrote")
        for call in (lambda: self.m.get("01AAAAAAAAAAAAAAAAAAAAAAAA", user_id=u1),
                     lambda: self.m.update("01AAAAAAAAAAAAAAAAAAAAAAAA", "新的", user_id=u1),
                     lambda: self.m.delete("01AAAAAAAAAAAAAAAAAAAAAAAA", user_id=u1),
                     lambda: self.m.history("01AAAAAAAAAAAAAAAAAAAAAAAA", user_id=u1)):
            with self.assertRaises(NotFound):
                call()

    def test_another_users_memory_is_not_found(self):
        u1, u2 = self.users()
        mid = self.m.add("我对花生过敏", user_id=u1)["results"][0]["id"]
        with self.assertRaises(NotFound):
            self.m.get(mid, user_id=u2)
        with self.assertRaises(NotFound):
            self.m.delete(mid, user_id=u2)
        self.assertEqual(self.m.get(mid, user_id=u1)["memory"], "我对花生过敏")


class HttpMemoryTest(MemoryMethods, unittest.TestCase):
    def setUp(self):
        self.m = Memory(url=env("AGENTMEM_URL"), token=env("AGENTMEM_TOKEN_ADMIN"))

    def test_a_user_token_acts_for_its_user_only(self):
        mine = Memory(url=env("AGENTMEM_URL"), token=env("AGENTMEM_TOKEN_B"))
        r = mine.add("I prefer green tea, no sugar " + uuid.uuid4().hex[:6])
        self.assertEqual(r["results"][0]["event"], "ADD")
        self.assertEqual(mine.get(r["results"][0]["id"])["memory"], r["results"][0]["memory"])
        self.assertTrue(mine.get_all(user_id=env("AGENTMEM_USER_B"))["results"])
        with self.assertRaises(Forbidden) as cm:
            mine.get_all(user_id=env("AGENTMEM_USER_A"))
        self.assertEqual((cm.exception.field, cm.exception.status), ("user_id", 403))
        with self.assertRaises(Forbidden):
            mine.delete_all(user_id=env("AGENTMEM_USER_A"))

    def test_bad_token_and_no_server(self):
        with self.assertRaises(Unauthorized):
            Memory(url=env("AGENTMEM_URL"), token="amk_" + "A" * 43).get_all(user_id="x")
        with self.assertRaises(Unavailable) as cm:
            Memory(url="http://127.0.0.1:9", token="t", timeout=5).get_all(user_id="x")
        self.assertEqual(cm.exception.code, "unavailable")


class EmbeddedMemoryTest(MemoryMethods, unittest.TestCase):
    def setUp(self):
        self.path = os.path.join(env("AGENTMEM_TMP"), f"m-{uuid.uuid4().hex}.db")
        self.m = Memory(path=self.path, lib=env("AGENTMEM_LIB"))

    def tearDown(self):
        self.m.close()

    def test_a_user_is_required(self):
        with self.assertRaises(InvalidArgument) as cm:
            self.m.add("我喜欢喝茶")
        self.assertEqual(cm.exception.field, "user_id")
        with Memory(path=self.path, lib=env("AGENTMEM_LIB"), user_id="默认用户") as d:
            mid = d.add("我喜欢喝茶")["results"][0]["id"]
            self.assertEqual(d.get(mid)["user_id"], "默认用户")
        self.assertEqual(self.m.get(mid, user_id="默认用户")["memory"], "我喜欢喝茶")

    def test_default_store_path(self):
        old = {k: os.environ.get(k) for k in ("AGENTMEM_DB", "XDG_DATA_HOME")}
        try:
            os.environ.pop("AGENTMEM_DB", None)
            os.environ["XDG_DATA_HOME"] = os.path.join(env("AGENTMEM_TMP"), "xdg-" + uuid.uuid4().hex)
            with Memory(lib=env("AGENTMEM_LIB")) as d:
                d.add("I prefer tea", user_id="u")
            want = os.path.join(os.environ["XDG_DATA_HOME"], "agentmem", "agentmem.db")
            self.assertTrue(os.path.isfile(want))
            os.environ["AGENTMEM_DB"] = self.path
            self.assertEqual(agentmem.default_path(), self.path)
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def test_existing_error_classes_still_work(self):
        e = AgentmemError("not_found", "gone", None, 404)
        self.assertIsInstance(e, NotFound)
        self.assertEqual((e.code, e.message, e.status), ("not_found", "gone", 404))
        self.assertIsInstance(AgentmemError("invalid_request", "bad", "text"), InvalidArgument)
        self.assertEqual(type(AgentmemError("something_new", "x")), AgentmemError)


if __name__ == "__main__":
    unittest.main()
