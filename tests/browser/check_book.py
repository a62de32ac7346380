#!/usr/bin/env python3
"""The book (attnlab book --html FILE) in headless Chromium, driven over the DevTools protocol.

usage: check_book.py ATTNLAB_BIN CHECK [OUT_DIR]   (OUT_DIR: the links check saves the README's two pictures there, docs/images)
  CHECK  links | controls | refused | zh | lessons | no-worker | exercises
Exits 77 (ctest: Skipped) when chromium is not installed or the binary has no book core (built by
`cmake --build build --target book`); 0 when every check passes; 1 with the reasons otherwise.

Each check writes the book, opens it from file:// and waits until the page says its run is done
(main[data-state=done]); it then reads the run's trace from the element with id attnlab-trace and
compares it with `attnlab lesson … --json -` for the same flags:
  links     a URL fragment (#lesson=mha&heads=4&seed=7) opens that lesson with those options; one
            heatmap per head is drawn; gqa from a link too
  controls  the form's fields are changed as a learner would (heads, seed in mha; heads, kv-heads,
            seed in gqa, reached from the lesson list) and the page reruns
  refused   a size the work caps refuse shows the command line's own error line, in the page's
            language, and no trace; a run whose trace is too large for the page shows the lesson
            and says how to get the trace
  zh        #lang=zh: the page, the lesson and its trace in Chinese
  lessons   every lesson at its defaults
  no-worker a browser without workers: the core runs on the page
  exercises the book opens on the path; a lesson's exercise boxes (data-exercise="LESSON.N") take a
            right answer (data-verdict="right") and a wrong one ("not-yet", with the hint); the
            page's answer key is `attnlab exercise … --solution --json -`'s for the same seed; a new
            seed poses new numbers; the path counts what was done, and its reset forgets it
The trace must be equal in every key, word and number, to the last bit, and the lesson's page in
the frame must be the one `attnlab lesson … --html -` writes, byte for byte: the core computes with
attnlab's own elementary functions (src/base/libm.h), as the command line does, not with the C
library it was linked with (docs/ARCHITECTURE.md, "The book").
"""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

from check_pages import find_chromium

OUT_DIR = None  # where the links check saves its screenshot, when given

class Browser:
    """Chromium with --remote-debugging-pipe: JSON messages, each ended by a NUL, on fds 3 and 4."""

    def __init__(self, chromium, work):
        self.to_r, self.to_w = os.pipe()
        self.from_r, self.from_w = os.pipe()
        profile = tempfile.mkdtemp(dir=work, prefix="profile-")
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
               "--disable-background-networking", "--disable-component-update", "--no-first-run",
               "--disable-extensions", "--user-data-dir=" + profile, "--window-size=1280,1000",
               "--allow-file-access-from-files", "about:blank"]
        # the child reads commands on fd 3 and writes answers on fd 4
        def fds():
            a, b = os.dup(self.to_r), os.dup(self.from_w)  # the pipes may themselves be 3 or 4
            os.dup2(a, 3)
            os.dup2(b, 4)
        # (close_fds=False: pass_fds would be closed after preexec_fn has put the pipes on 3 and 4;
        # os.pipe's own fds are close-on-exec, the dup2 copies are not)
        self.proc = subprocess.Popen(cmd, close_fds=False, preexec_fn=fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(self.to_r)
        os.close(self.from_w)
        self.buf = b""
        self.next_id = 1
        self.console = []
        self.events = []  # every event's name, in order (the failures name the last ones)
        self.session = None

    def read(self, end, waiting_for):
        """The next message before time `end`; events and console messages are recorded on the way."""
        while b"\0" not in self.buf:
            ready, _, _ = select.select([self.from_r], [], [], max(0.0, end - time.time()))
            if not ready:
                raise SystemExit("FAIL: chromium sent no %s in time (last events: %s; console: %s)"
                                 % (waiting_for, self.events[-12:], json.dumps(self.console)[-1500:]))
            chunk = os.read(self.from_r, 1 << 20)
            if not chunk:
                raise SystemExit("FAIL: chromium closed the pipe: %s" % self.proc.stderr.read().decode()[-2000:])
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        reply = json.loads(raw)
        if reply.get("method") in ("Runtime.consoleAPICalled", "Runtime.exceptionThrown"):
            self.console.append(reply["params"])
        if "method" in reply:
            self.events.append(reply["method"])
        return reply

    def send(self, method, params=None, session=True, timeout=60):
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.next_id += 1
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        end = time.time() + timeout
        while True:
            reply = self.read(end, "answer to " + method)
            if reply.get("id") == msg["id"]:
                if "error" in reply:
                    raise SystemExit("FAIL: %s: %s" % (method, reply["error"]))
                return reply["result"]

    def open(self, url, before=None):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        self.send("Runtime.enable")
        self.send("Page.enable")
        if before:  # a script that runs before the page's own
            self.send("Page.addScriptToEvaluateOnNewDocument", {"source": before})
        self.events = []
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")  # evaluating before it could run in about:blank

    def wait_event(self, name, timeout=60):
        end = time.time() + timeout
        while name not in self.events:
            self.read(end, name)

    def eval(self, expr, timeout=100):
        # (WAIT gives up by itself after 90 s; Runtime.evaluate's own "timeout" left some answers unsent)
        r = self.send("Runtime.evaluate", {"expression": expr, "awaitPromise": True, "returnByValue": True}, timeout=timeout)
        if "exceptionDetails" in r:
            raise SystemExit("FAIL: %s: %s" % (expr[:80], json.dumps(r["exceptionDetails"])[:1500]))
        return r["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=10)
        except SystemExit:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# Waits until the run asked for last is done (main[data-state=done], no newer run pending), then
# reports what the page shows.
WAIT = r"""
new Promise(function (resolve, reject) {
  var t0 = Date.now();
  (function poll() {
    var m = document.getElementById('main');
    if (m && m.dataset.state === 'done') {
      var f = document.getElementById('view'), d = null;
      try { d = f.contentDocument; } catch (e) {}
      resolve({
        rc: m.dataset.rc,
        trace: document.getElementById('attnlab-trace').textContent,
        error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent,
        status: document.getElementById('status').textContent,
        title: document.getElementById('title').textContent,
        lang: document.documentElement.lang,
        hash: location.hash,
        command: document.getElementById('command').textContent,
        frame_lang: d ? d.documentElement.lang : null,
        heatmaps: d ? d.querySelectorAll('svg.hm').length : -1,
        frame_text: d && d.body ? d.body.textContent.slice(0, 400) : '',
        page: f ? f.srcdoc : ''
      });
    } else if (Date.now() - t0 > 90000) {
      reject(new Error('the page never finished its run: state ' + (m && m.dataset.state)));
    } else setTimeout(poll, 50);
  })();
})
"""


def set_field(b, name, value):
    """Types a value into the form's field NAME and commits it (a change event), as a learner does."""
    b.eval("""(function () {
      var m = document.getElementById('main'); m.dataset.state = 'asked';
      var i = document.querySelector('#form input[name="%s"]');
      if (!i) throw new Error('no field %s');
      i.value = %s; i.dispatchEvent(new Event('change'));
    })()""" % (name, name, json.dumps(value)))


def click_lesson(b, name):
    b.eval("""(function () {
      document.getElementById('main').dataset.state = 'asked';
      var a = document.querySelector('#lessons a[data-lesson="%s"]');
      if (!a) throw new Error('no lesson link %s');
      a.click();
    })()""" % (name, name))


def cli_output(bin_, args, flag):
    p = subprocess.run([bin_] + args + [flag, "-"], capture_output=True)
    if p.returncode != 0:
        raise SystemExit("FAIL: %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout.decode()


def compare(r, bin_, args, what):
    """Problems between the page's run and `attnlab ARGS`: the trace must be the one `--json -`
    writes, every key, word and number to the last bit, and the lesson's page shown in the frame
    the one `--html -` writes, byte for byte."""
    if not r["trace"]:
        return ["%s: the page shows no trace" % what]
    page, cli = json.loads(r["trace"]), json.loads(cli_output(bin_, args, "--json"))
    problems, stats = [], {"n": 0}

    def walk(a, b, path):
        if isinstance(a, float) and isinstance(b, float):
            stats["n"] += 1
        if type(a) != type(b):
            problems.append("%s: %s is %r on the page, %r on the command line" % (what, path, str(a)[:80], str(b)[:80]))
        elif isinstance(a, dict):
            if list(a) != list(b):
                problems.append("%s: %s has keys %s on the page, %s on the command line" % (what, path, list(a), list(b)))
            else:
                for k in a:
                    walk(a[k], b[k], path + "." + k)
        elif isinstance(a, list):
            if len(a) != len(b):
                problems.append("%s: %s has %d items on the page, %d on the command line" % (what, path, len(a), len(b)))
            else:
                for k, (x, y) in enumerate(zip(a, b)):
                    walk(x, y, "%s[%d]" % (path, k))
        elif a != b:
            problems.append("%s: %s is %r on the page, %r on the command line" % (what, path, repr(a)[:80], repr(b)[:80]))

    walk(page, cli, "trace")
    html = cli_output(bin_, args, "--html")
    same_page = r["page"] == html
    if not same_page:
        at = next((i for i, (x, y) in enumerate(zip(r["page"], html)) if x != y), min(len(r["page"]), len(html)))
        problems.append("%s: the lesson's page differs from --html's at character %d of %d: %r vs %r"
                        % (what, at, len(html), r["page"][at:at + 60], html[at:at + 60]))
    print("%s: %d numbers in the trace, %s; the lesson's page %s" % (
        what, stats["n"], "all equal to the last bit" if not problems else "NOT all equal",
        "is --html's, byte for byte" if same_page else "DIFFERS"))
    return problems[:10]


def book(bin_, work):
    path = os.path.join(work, "book.html")
    p = subprocess.run([bin_, "book", "--html", path, "--lang", "en"], capture_output=True)
    if p.returncode == 2 and b"no book core" in p.stderr:
        print("skipped: this attnlab has no book core (cmake --build build --target book)")
        sys.exit(77)
    if p.returncode != 0:
        raise SystemExit("FAIL: attnlab book exited %d: %s" % (p.returncode, p.stderr.decode()))
    return path


def check_links(b, bin_, path):
    problems = []
    b.open("file://" + path + "#lesson=mha&heads=4&seed=7")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "mha", "--heads=4", "--seed=7", "--lang", "en"], "mha heads 4 seed 7 (link)")
    if r["heatmaps"] < 4:
        problems.append("mha with 4 heads: %d heatmaps in the lesson's page" % r["heatmaps"])
    if "--heads=4" not in r["command"] or "--seed=7" not in r["command"]:
        problems.append("the command shown is %r" % r["command"])
    if OUT_DIR:  # the README's pictures: docs/images/book-mha.png and book-mha-heatmaps.png
        shot = b.send("Page.captureScreenshot", {"format": "png", "clip": {"x": 0, "y": 0, "width": 1280, "height": 1000, "scale": 1}})
        with open(os.path.join(OUT_DIR, "book-mha.png"), "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        # and the heads' heatmaps (the softmax step), further down the lesson's page
        y = b.eval("""(function () {
          var v = document.getElementById('view'), d = v.contentDocument;
          var fig = d.querySelector('figure.heatmap[data-tensor="weights"]') || d.querySelector('figure.heatmap');
          return v.getBoundingClientRect().top + window.scrollY + fig.getBoundingClientRect().top - 60;
        })()""")
        shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                 "clip": {"x": 250, "y": y, "width": 1030, "height": 520, "scale": 1}})
        with open(os.path.join(OUT_DIR, "book-mha-heatmaps.png"), "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    b.eval("(function () { document.getElementById('main').dataset.state = 'asked'; location.hash = '#lesson=gqa&heads=6&kv-heads=3&seed=5'; })()")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "gqa", "--heads=6", "--kv-heads=3", "--seed=5", "--lang", "en"], "gqa from a new link")
    # a hand-written link: a '+' stays a '+', spaces around a value are dropped, an unknown language
    # (even one every object has, "constructor") is English
    b.eval("(function () { document.getElementById('main').dataset.state = 'asked'; location.hash = '#lesson=decode&bandwidth=1e+2%20&lang=constructor'; })()")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "decode", "--bandwidth=1e+2", "--lang", "en"], "decode from a hand-written link")
    return problems


def check_controls(b, bin_, path):
    problems = []
    b.open("file://" + path + "#lesson=mha")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "mha", "--lang", "en"], "mha, defaults")
    set_field(b, "heads", "4")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "mha", "--heads=4", "--lang", "en"], "mha, heads changed to 4")
    set_field(b, "seed", "11")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "mha", "--seed=11", "--heads=4", "--lang", "en"], "mha, then seed 11")
    if "heads=4" not in r["hash"] or "seed=11" not in r["hash"]:
        problems.append("the URL did not follow the form: %r" % r["hash"])
    click_lesson(b, "gqa")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "gqa", "--lang", "en"], "gqa from the lesson list")
    set_field(b, "heads", "8")
    b.eval(WAIT)
    set_field(b, "kv-heads", "2")
    b.eval(WAIT)
    set_field(b, "seed", "3")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "gqa", "--seed=3", "--heads=8", "--kv-heads=2", "--lang", "en"], "gqa, heads 8, kv-heads 2, seed 3")
    if r["heatmaps"] < 8:
        problems.append("gqa with 8 heads: %d heatmaps" % r["heatmaps"])
    return problems


def check_refused(b, bin_, path):
    problems = []
    # a refusal after a run: nothing of that run stays on show (lesson page, trace, download link)
    b.open("file://" + path + "#lesson=mha&heads=4&lang=en")
    b.eval(WAIT)
    set_field(b, "heads", "0")
    r = b.eval(WAIT)
    left = b.eval("JSON.stringify([document.getElementById('view').srcdoc.length, document.getElementById('download').hasAttribute('href')])")
    if r["rc"] != "2" or r["trace"] or left != "[0,false]":
        problems.append("heads 0 after heads 4: exit %s, trace of %d bytes, [page, download] left: %s" % (r["rc"], len(r["trace"]), left))
    for lang in ("en", "zh"):
        b.open("file://" + path + "#lesson=mha&lang=%s&d-model=100000000" % lang)
        r = b.eval(WAIT)
        p = subprocess.run([bin_, "lesson", "mha", "--d-model=100000000", "--lang", lang], capture_output=True)
        line = p.stderr.decode().strip()
        if p.returncode != 2 or not line:
            problems.append("the command line did not refuse --d-model 100000000 (%d)" % p.returncode)
        if r["rc"] != "2" or line not in r["error"]:
            problems.append("%s: the page shows %r (exit %s), the command line says %r" % (lang, r["error"], r["rc"], line))
        if r["trace"]:
            problems.append("%s: a refused run left a trace on the page" % lang)
    # A run whose trace is too large for the page (134 MB of JSON): the lesson is shown, the
    # trace is not kept, and the page says how to get it.
    b.open("file://" + path + "#lesson=mha&seq-len=600&d-model=64&heads=8&lang=en")
    r = b.eval(WAIT)
    if r["trace"] or "--json FILE" not in r["status"] or "lesson mha" not in r["frame_text"]:
        problems.append("a run with a 134 MB trace: status %r, lesson page %r, trace of %d bytes" % (r["status"], r["frame_text"][:60], len(r["trace"])))
    return problems


def check_no_worker(b, bin_, path):
    """A browser that will not start a worker: the core runs on the page itself, and says so."""
    problems = []
    b.open("file://" + path + "#lesson=gqa&heads=8&kv-heads=4&seed=2", before="window.Worker = undefined;")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "gqa", "--heads=8", "--kv-heads=4", "--seed=2", "--lang", "en"], "gqa without a worker")
    note = b.eval("document.getElementById('no-worker').textContent")
    if "worker" not in note:
        problems.append("the page did not say that it runs without a worker: %r" % note)
    set_field(b, "heads", "4")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "gqa", "--heads=4", "--kv-heads=4", "--seed=2", "--lang", "en"], "gqa without a worker, heads 4")
    return problems


def check_lessons(b, bin_, path):
    """Every lesson, at its defaults, from a link: the page's trace is the command line's."""
    problems = []
    names = [line.split()[0] for line in subprocess.run([bin_, "list", "--lang", "en"], capture_output=True, text=True).stdout.splitlines()
             if line.startswith("  ") and line.split()]
    if len(names) < 10:
        return ["attnlab list gave %r" % names]
    b.open("file://" + path + "#lesson=" + names[0] + "&lang=en")
    for k, name in enumerate(names):
        if k > 0:  # (the first one runs as the page opens: setting its own fragment again does nothing)
            b.eval("(function () { document.getElementById('main').dataset.state = 'asked'; location.hash = '#lesson=%s&lang=en'; })()" % name)
        r = b.eval(WAIT)
        if r["rc"] != "0":
            problems.append("%s: exit %s in the page: %s" % (name, r["rc"], r["error"]))
            continue
        problems += compare(r, bin_, ["lesson", name, "--lang", "en"], name)
    return problems


def wait_for(b, expr, what, timeout=90):
    """Polls the page until EXPR (JavaScript) is truthy; returns its value."""
    return b.eval("""new Promise(function (resolve, reject) {
      var t0 = Date.now();
      (function poll() {
        var v = null;
        try { v = (%s); } catch (e) {}
        if (v) resolve(v);
        else if (Date.now() - t0 > %d) reject(new Error('never: %s'));
        else setTimeout(poll, 50);
      })();
    })""" % (expr, timeout * 1000, what.replace("'", "")), timeout=timeout + 10)


def check_exercises(b, bin_, path):
    problems = []
    b.open("file://" + path)
    rows = wait_for(b, "!document.getElementById('path').hidden && document.querySelectorAll('#path-stops tr').length",
                    "the path")
    stops = json.loads(cli_output(bin_, ["course", "--lang", "en"], "--json"))["stops"]
    if rows != len(stops):
        problems.append("the path shows %d stops, attnlab course %d" % (rows, len(stops)))
    if not b.eval("document.getElementById('main').hidden"):
        problems.append("the book opened on a lesson, not on the path")
    b.eval("location.hash = '#lesson=gelu&lang=en'")
    b.eval(WAIT)
    n = wait_for(b, "(function () { var x = document.querySelectorAll('#exercise-list [data-exercise]');"
                    " for (var i = 0; i < x.length; ++i) if (!x[i].dataset.posed) return 0; return x.length; })()",
                 "the exercises posed")
    if n != 4:
        problems.append("gelu shows %d exercise boxes, not 4" % n)

    def key(n_, seed):
        j = json.loads(cli_output(bin_, ["exercise", "gelu", str(n_), "--seed", str(seed), "--solution", "--lang", "en"], "--json"))
        return j

    def answer(box, value):
        b.eval("""(function () {
          var box = document.querySelector('[data-exercise="%s"]');
          var v = box.querySelector('[data-verdict]'); v.setAttribute('data-verdict', ''); v.textContent = '';
          box.querySelector('input[data-answer]').value = %s;
          box.querySelector('[data-check]').click();
        })()""" % (box, json.dumps(value)))
        return wait_for(b, "(function () { var v = document.querySelector('[data-exercise=\"%s\"] [data-verdict]');"
                           " return v.getAttribute('data-verdict') ? {verdict: v.getAttribute('data-verdict'), text: v.textContent} : null; })()"
                           % box, "a verdict")

    k1 = key(1, 1)
    r = answer("gelu.1", "%.10g" % k1["key"])
    if r["verdict"] != "right":
        problems.append("the right answer %r got %r" % (k1["key"], r))
    r = answer("gelu.1", "%.10g" % (k1["key"] + 0.5))
    if r["verdict"] != "not-yet" or "Hint:" not in r["text"]:
        problems.append("a wrong answer got %r" % r)
    r = answer("gelu.4", k1 and key(4, 1)["choice"])
    if r["verdict"] != "right":
        problems.append("the right choice got %r" % r)
    r = answer("gelu.2", "not a number")
    if r["verdict"] != "refused" or "--answer" not in r["text"]:
        problems.append("a malformed answer got %r" % r)
    # the page's key is the command line's, at seed 1 and at seed 5 (new numbers)
    b.eval("document.querySelector('[data-exercise=\"gelu.1\"] [data-solution]').click()")
    page_key = wait_for(b, "document.querySelector('[data-exercise=\"gelu.1\"]').dataset.key", "the solution")
    if page_key != k1["key_text"]:
        problems.append("the page's key %r, the command line's %r" % (page_key, k1["key_text"]))
    q1 = b.eval("document.querySelector('[data-exercise=\"gelu.1\"] pre').textContent")
    b.eval("(function () { var s = document.getElementById('exercise-seed'); s.value = '5'; s.dispatchEvent(new Event('change')); })()")
    wait_for(b, "document.querySelector('[data-exercise=\"gelu.1\"]').dataset.posed === '5'", "the new seed")
    q5 = b.eval("document.querySelector('[data-exercise=\"gelu.1\"] pre').textContent")
    k5 = key(1, 5)
    if q5 == q1 or q5 != k5["question"]:
        problems.append("seed 5 poses %r (seed 1: %r; the command line: %r)" % (q5, q1, k5["question"]))
    b.eval("document.querySelector('[data-exercise=\"gelu.1\"] [data-solution]').click()")
    page_key = wait_for(b, "document.querySelector('[data-exercise=\"gelu.1\"]').dataset.key", "the solution")
    if page_key != k5["key_text"]:
        problems.append("at seed 5 the page's key %r, the command line's %r" % (page_key, k5["key_text"]))
    # the path counts what was done (gelu.1 and gelu.4), and forgets it when asked
    b.eval("location.hash = '#path&lang=en'")
    done = wait_for(b, "!document.getElementById('path').hidden && document.querySelector('#path-stops tr[data-stop=\"gelu\"] td:last-child').textContent",
                    "the path again")
    if done != "2/4":
        problems.append("the path shows gelu at %r, not 2/4" % done)
    b.eval("document.getElementById('progress-reset').click()")
    done = b.eval("document.querySelector('#path-stops tr[data-stop=\"gelu\"] td:last-child').textContent")
    if done != "0/4":
        problems.append("after the reset the path shows gelu at %r" % done)
    return problems


def check_zh(b, bin_, path):
    problems = []
    b.open("file://" + path + "#lesson=mha&lang=zh&heads=4")
    r = b.eval(WAIT)
    problems += compare(r, bin_, ["lesson", "mha", "--heads=4", "--lang", "zh"], "mha in Chinese")
    if r["lang"] != "zh" or r["frame_lang"] != "zh":
        problems.append("page lang %r, lesson page lang %r" % (r["lang"], r["frame_lang"]))
    if not any("\u4e00" <= c <= "\u9fff" for c in r["title"]) or not any("\u4e00" <= c <= "\u9fff" for c in r["frame_text"]):
        problems.append("no Chinese in the title %r or the lesson %r" % (r["title"], r["frame_text"][:80]))
    return problems


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    global OUT_DIR
    bin_, check = sys.argv[1], sys.argv[2]
    OUT_DIR = sys.argv[3] if len(sys.argv) > 3 else None
    chromium = find_chromium()
    if not chromium:
        print("skipped: no chromium (apt-get install chromium)")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="attnlab-book-")
    try:
        path = book(bin_, work)
        b = Browser(chromium, work)
        try:
            problems = {"links": check_links, "controls": check_controls, "refused": check_refused, "zh": check_zh,
                        "lessons": check_lessons, "no-worker": check_no_worker, "exercises": check_exercises}[check](b, bin_, path)
            errors = [c for c in b.console if c.get("type") == "error" or "exceptionDetails" in c]
            if errors:
                problems.append("console errors: %s" % json.dumps(errors)[:2000])
        finally:
            b.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if problems:
        print("FAIL:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print("ok: %s" % check)


if __name__ == "__main__":
    main()
