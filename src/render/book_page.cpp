#include "book_page.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace attn {

namespace {

// No network: scripts and styles are inline; the core's wasm is compiled from the page's own bytes
// ('wasm-unsafe-eval'); its worker is a blob: of the page's text; each run's lesson page is shown
// in an iframe's srcdoc (which keeps its own policy too).
const char* kPolicy =
    "default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval' blob:; worker-src blob:; "
    "style-src 'unsafe-inline'; img-src data: blob:; frame-src 'self' about: blob:";

const char* kStyle = R"CSS(
:root { color-scheme: light; --ink: #1b1f24; --soft: #57606a; --line: #d0d7de; --accent: #0b5cad; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, "Noto Sans", "Noto Sans CJK SC", sans-serif; color: var(--ink); }
header { padding: 12px 20px; border-bottom: 1px solid var(--line); display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 20px; margin: 0; }
header p { margin: 0; color: var(--soft); flex: 1 1 420px; }
.book { display: grid; grid-template-columns: minmax(180px, 260px) minmax(0, 1fr); }
nav { border-right: 1px solid var(--line); padding: 8px 0; }
nav a { display: block; padding: 5px 16px; color: var(--ink); text-decoration: none; }
nav a small { display: block; color: var(--soft); font-size: 12px; line-height: 1.3; }
nav a[aria-current="page"] { background: #eef4fb; border-left: 3px solid var(--accent); padding-left: 13px; }
main { padding: 12px 20px; min-width: 0; }
main h2 { margin: 0 0 4px; }
form { display: flex; flex-wrap: wrap; gap: 8px 16px; margin: 10px 0; }
form label { display: flex; flex-direction: column; font-size: 13px; max-width: 260px; }
form label span { font-family: ui-monospace, monospace; }
form label small { color: var(--soft); font-size: 11px; line-height: 1.25; max-height: 2.6em; overflow: hidden; }
form input[type=text] { font: 14px ui-monospace, monospace; padding: 3px 6px; width: 150px; }
#status { color: var(--soft); min-height: 1.5em; margin: 4px 0; }
#error { border: 1px solid var(--bad); color: var(--bad); padding: 8px 12px; white-space: pre-wrap; font-family: ui-monospace, monospace; }
.note { color: var(--soft); font-size: 13px; }
code { font-family: ui-monospace, monospace; word-break: break-all; }
iframe { width: 100%; border: 1px solid var(--line); min-height: 480px; }
main[data-state="computing"] iframe { opacity: 0.5; }
#attnlab-trace { max-height: 240px; overflow: auto; font-size: 11px; white-space: pre-wrap; word-break: break-all; }
.exercise { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 10px 0; }
.exercise h4 { margin: 0 0 4px; font-size: 15px; }
.exercise pre { white-space: pre-wrap; font: 14px/1.45 system-ui, "Noto Sans", "Noto Sans CJK SC", sans-serif; margin: 4px 0; }
.exercise input[type=text] { font: 14px ui-monospace, monospace; padding: 3px 6px; width: 180px; }
.exercise [data-verdict="right"] { color: #1a7f37; }
.exercise [data-verdict="not-yet"] { color: #9a6700; }
.exercise .solution { color: var(--soft); white-space: pre-wrap; }
.done { color: #1a7f37; }
#path table { border-collapse: collapse; margin: 8px 0; }
#path td, #path th { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
footer { padding: 12px 20px; color: var(--soft); font-size: 12px; border-top: 1px solid var(--line); }
@media (max-width: 760px) { .book { grid-template-columns: 1fr; } nav { border-right: 0; border-bottom: 1px solid var(--line); } }
)CSS";

// The worker: the core's text, then this driver. One job at a time (the page sends the next only
// when a result is back); each job is one command line, its files read back from memory.
const char* kDriver = R"JS(
function attnlabDriver(factory, port) {
  // The trace goes to a device, /run/trace.json, that keeps at most LIMIT bytes: past that it keeps
  // nothing and takes the rest without keeping it, so the run completes (the command line writes
  // devices before it renames its files: a failing device would leave no lesson page).
  var LIMIT = 32 << 20, core = null, out = [], err = [], waiting = [], chunks = [], size = 0, over = false;
  function run(job) {
    out = []; err = []; chunks = []; size = 0; over = false;
    try { core.FS.unlink('/run/page.html'); } catch (e) {}
    var t0 = performance.now(), rc, page = null, trace = null;
    try { rc = core.ccall('attnlab_run_json', 'number', ['string'], [JSON.stringify(job.args)]); }
    catch (e) { rc = -1; err.push(String(e && e.message || e)); }
    var ms = performance.now() - t0;
    if (rc !== -1) {
      try { page = core.FS.readFile('/run/page.html', {encoding: 'utf8'}); } catch (e) {}
    }
    if (!over && size > 0 && rc !== -1) {
      var all = new Uint8Array(size), at = 0;
      chunks.forEach(function (c) { all.set(c, at); at += c.length; });
      trace = new TextDecoder().decode(all);
    }
    chunks = [];
    port.postMessage({id: job.id, rc: rc, ms: ms, page: page, trace: trace, too_large: over ? LIMIT : 0,
                      stdout: out.join('\n'), stderr: err.join('\n')});
    if (rc === -1) boot();  // a trap leaves the module unusable: start a fresh one
  }
  function boot() {
    core = null;
    factory({print: function (s) { out.push(s); }, printErr: function (s) { err.push(s); }}).then(function (m) {
      try { m.FS.mkdir('/run'); } catch (e) {}
      var dev = m.FS.makedev(64, 0);
      m.FS.registerDevice(dev, {
        open: function () {}, close: function () {}, read: function () { return 0; },
        write: function (stream, buffer, offset, length) {
          if (over || size + length > LIMIT) { over = true; chunks = []; return length; }
          chunks.push(buffer.slice(offset, offset + length));
          size += length;
          return length;
        }
      });
      m.FS.mkdev('/run/trace.json', dev);
      core = m;
      port.postMessage({ready: true});
      while (core && waiting.length) run(waiting.shift());
    }, function (e) {
      port.postMessage({fatal: String(e && e.message || e)});
    });
  }
  port.onmessage = function (e) { if (core) run(e.data); else waiting.push(e.data); };
  boot();
}
)JS";

// The page: the lesson list, a form drawn from the manifest, the run's page in an iframe and its
// trace (id attnlab-trace, what the tests read). The URL's fragment holds the lesson, the language
// and every option that is set (#lesson=mha&heads=4&seed=7), so a link opens a configured lesson.
const char* kPage = R"JS(
(function () {
  'use strict';
  var M = JSON.parse(document.getElementById('attnlab-manifest').textContent);
  var coreText = document.getElementById('attnlab-core').textContent;
  var $ = function (id) { return document.getElementById(id); };
  var main = $('main'), view = $('view'), traceEl = $('attnlab-trace');
  function known(code) { return M.langs.indexOf(code) >= 0; }  // not `code in M.words`: "constructor"
  var state = {lesson: M.lessons[0], lang: known(document.documentElement.lang) ? document.documentElement.lang : 'en', values: {},
               view: 'path'};
  var port = null, busy = false, pending = null, nextId = 1, slow = null, shown = true, ready = false, noWorker = false;
  var exJobs = {}, exQueue = [];  // the exercises' runs: id -> what to do with the result, and those waiting
  var lessonRunning = false;  // a lesson's run is asked for and not back (the exercises' runs are not lessons)

  function W() { return M.words[state.lang]; }
  function fill(s, args) { return s.replace(/\{(\w+)\}/g, function (m, k) { return k in args ? args[k] : m; }); }
  function find(name) { for (var i = 0; i < M.lessons.length; ++i) if (M.lessons[i].name === name) return M.lessons[i]; return null; }
  function on(v) { return v === '1' || v === 'true' || v === 'on' || v === ''; }

  function readHash() {
    var h = {}, s = location.hash.replace(/^#/, '');
    s.split('&').forEach(function (kv) {
      if (!kv) return;
      var i = kv.indexOf('='), k = i < 0 ? kv : kv.slice(0, i), v = i < 0 ? '' : kv.slice(i + 1);
      try { h[decodeURIComponent(k)] = decodeURIComponent(v).trim(); } catch (e) {}  // a '+' stays a '+'
    });
    if (known(h.lang)) state.lang = h.lang;
    state.view = find(h.lesson) ? 'lesson' : 'path';  // the book opens on the path
    state.lesson = find(h.lesson) || state.lesson;
    state.values = {};
    state.lesson.options.forEach(function (o) {
      var k = o.flag.slice(2);
      if (!(k in h)) return;
      if (o.kind === 'toggle') { if (on(h[k])) state.values[o.flag] = '1'; }
      else state.values[o.flag] = h[k];
    });
  }
  function hash() {
    if (state.view === 'path') return '#path&lang=' + state.lang;
    var parts = ['lesson=' + encodeURIComponent(state.lesson.name), 'lang=' + state.lang];
    state.lesson.options.forEach(function (o) {
      var v = state.values[o.flag];
      if (v !== undefined && v !== '') parts.push(o.flag.slice(2) + '=' + encodeURIComponent(v));
    });
    return '#' + parts.join('&');
  }
  // The run's command line (the page adds its own --html and --json in memory).
  function args() {
    var a = ['lesson', state.lesson.name];
    state.lesson.options.forEach(function (o) {
      var v = state.values[o.flag];
      if (v === undefined || v === '') return;
      if (o.kind === 'toggle') a.push(o.flag); else a.push(o.flag + '=' + v);
    });
    return a.concat(['--lang', state.lang]);
  }
  function quote(s) { return /^[\w.,:=\/+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'"; }

  function words() {
    var w = W();
    document.documentElement.lang = state.lang;
    document.title = w.title;
    $('title').textContent = w.title;
    $('intro').textContent = w.intro;
    $('lang-label').textContent = w.language;
    $('nav-label').textContent = w.lessons;
    $('settings-label').textContent = w.settings;
    $('command-label').textContent = w.command;
    $('link').textContent = w.link;
    $('trace-label').textContent = w.trace;
    $('download').textContent = w.download;
    $('about').textContent = fill(w.about, {version: M.version});
    $('no-worker').textContent = noWorker ? w.no_worker : '';
    var nav = $('lessons');
    nav.textContent = '';
    var home = document.createElement('a');
    home.href = '#path&lang=' + state.lang;
    home.id = 'path-link';
    home.textContent = w.path;
    if (state.view === 'path') home.setAttribute('aria-current', 'page');
    nav.appendChild(home);
    $('path-title').textContent = w.path;
    $('path-intro').textContent = w.path_intro;
    $('path-col-lessons').textContent = w.path_col_lessons;
    $('path-col-teaches').textContent = w.path_col_teaches;
    $('path-col-minutes').textContent = w.path_col_minutes;
    $('path-col-done').textContent = w.path_col_done;
    $('progress-reset').textContent = w.progress_reset;
    $('exercises-title').textContent = w.exercises;
    $('exercise-seed-label').textContent = w.exercise_seed;
    M.lessons.forEach(function (l) {
      var a = document.createElement('a');
      a.href = '#lesson=' + l.name + '&lang=' + state.lang;
      a.textContent = l.name;
      a.dataset.lesson = l.name;
      if (state.view === 'lesson' && l === state.lesson) a.setAttribute('aria-current', 'page');
      var small = document.createElement('small');
      small.textContent = l.summary[state.lang] || l.summary.en;
      a.appendChild(small);
      nav.appendChild(a);
    });
  }

  function form() {
    var w = W(), f = $('form'), l = state.lesson;
    $('lesson-name').textContent = l.name;
    $('lesson-summary').textContent = l.summary[state.lang] || l.summary.en;
    f.textContent = '';
    l.options.forEach(function (o) {
      var label = document.createElement('label'), name = document.createElement('span');
      var help = o.help[state.lang] || o.help.en, input = document.createElement('input');
      name.textContent = o.flag;
      label.title = help;
      input.name = o.flag.slice(2);
      input.dataset.flag = o.flag;
      if (o.kind === 'toggle') {
        input.type = 'checkbox';
        input.checked = state.values[o.flag] === '1';
        input.addEventListener('change', function () { state.values[o.flag] = input.checked ? '1' : ''; changed(); });
      } else {
        // text, not type=number: a value the lesson refuses must reach it and be refused in words
        input.type = 'text';
        input.inputMode = o.kind === 'integer' ? 'numeric' : o.kind === 'real' ? 'decimal' : 'text';
        input.placeholder = w['default'];
        input.value = state.values[o.flag] || '';
        input.addEventListener('change', function () { state.values[o.flag] = input.value.trim(); changed(); });
      }
      var small = document.createElement('small');
      small.textContent = help;
      label.appendChild(name);
      label.appendChild(input);
      label.appendChild(small);
      f.appendChild(label);
    });
    $('cli-only').textContent = l.cli_only.length ? fill(w.cli_only, {flags: l.cli_only.join(', ')}) : '';
  }

  // The URL, the link and the command line, from the state; then the run.
  function changed() {
    if (state.view === 'path') return;
    var h = hash();
    try { history.replaceState(null, '', h); } catch (e) {}
    $('link').href = h;
    $('command').textContent = 'attnlab ' + args().map(quote).join(' ');
    run();
  }
  function show() {  // a new lesson or language: the words and the form too
    words();
    $('path').hidden = state.view !== 'path';
    main.hidden = state.view === 'path';
    if (state.view === 'path') {
      try { history.replaceState(null, '', hash()); } catch (e) {}
      drawPath();
      return;
    }
    form();
    changed();
    drawExercises();
  }

  // ---- progress (this browser's local storage) and the path ----
  var KEY = 'attnlab.progress';
  function progress() {
    try { var p = JSON.parse(localStorage.getItem(KEY) || '[]'); return Array.isArray(p) ? p : []; } catch (e) { return []; }
  }
  function markDone(id) {
    var p = progress();
    if (p.indexOf(id) < 0) p.push(id);
    try { localStorage.setItem(KEY, JSON.stringify(p)); } catch (e) {}
  }
  function doneIn(lesson) {
    var p = progress(), d = 0, l = find(lesson);
    for (var n = 1; l && n <= l.exercises; ++n) if (p.indexOf(lesson + '.' + n) >= 0) ++d;
    return d;
  }
  function drawPath() {
    var w = W(), body = $('path-stops');
    body.textContent = '';
    M.course.forEach(function (stop, i) {
      var tr = document.createElement('tr'), done = 0, total = 0;
      tr.dataset.stop = stop.id;
      var num = document.createElement('td'), les = document.createElement('td');
      num.textContent = String(i + 1);
      stop.lessons.forEach(function (name, k) {
        var a = document.createElement('a');
        a.href = '#lesson=' + name + '&lang=' + state.lang;
        a.textContent = name;
        if (k) les.appendChild(document.createTextNode(' '));
        les.appendChild(a);
        done += doneIn(name);
        total += (find(name) || {exercises: 0}).exercises;
      });
      if (!stop.lessons.length) les.textContent = stop.command;
      var teach = document.createElement('td'), min = document.createElement('td'), d = document.createElement('td');
      teach.textContent = stop.teaches[state.lang] || stop.teaches.en;
      min.textContent = '~' + stop.minutes;
      d.textContent = total ? done + '/' + total : '–';
      d.dataset.done = String(done);
      d.dataset.total = String(total);
      if (total && done === total) d.className = 'done';
      [num, les, teach, min, d].forEach(function (c) { tr.appendChild(c); });
      body.appendChild(tr);
    });
  }
  $('progress-reset').addEventListener('click', function () {
    try { localStorage.removeItem(KEY); } catch (e) {}
    drawPath();
  });

  // ---- the lesson's exercises: posed, checked and solved by the core (attnlab exercise … --json -) ----
  function exercise(argv, then) {
    var job = {id: nextId++, args: argv};
    exJobs[job.id] = then;
    exQueue.push(job);
    dispatch();
  }
  function dispatch() {  // the next job, when the core is free: a lesson's run first
    if (busy) return;
    if (pending) { var p = pending; pending = null; send(p); return; }
    if (!exQueue.length) return;
    busy = true;
    if (!port) start();
    port.postMessage(exQueue.shift());
  }
  function exArgs(box, more) {
    return ['exercise', box.dataset.lesson, box.dataset.n, '--seed', $('exercise-seed').value.trim() || '1',
            '--lang', state.lang, '--json', '-'].concat(more);
  }
  function parsed(r) { try { return JSON.parse(r.stdout); } catch (e) { return null; } }
  function drawExercises() {
    var list = $('exercise-list'), l = state.lesson;
    exQueue.forEach(function (j) { delete exJobs[j.id]; });  // the boxes they were for are gone
    exQueue = [];
    list.textContent = '';
    $('exercises').hidden = !l.exercises;
    for (var n = 1; n <= l.exercises; ++n) list.appendChild(exerciseBox(l.name, n));
  }
  function exerciseBox(lesson, n) {
    var w = W(), box = document.createElement('div');
    box.className = 'exercise';
    box.dataset.exercise = lesson + '.' + n;
    box.dataset.lesson = lesson;
    box.dataset.n = String(n);
    var h = document.createElement('h4'), q = document.createElement('pre'), tol = document.createElement('p');
    tol.className = 'note';
    var input = document.createElement('input'), check = document.createElement('button'), sol = document.createElement('button');
    input.type = 'text';
    input.dataset.answer = '';
    input.placeholder = w.answer;
    check.type = 'button';
    check.textContent = w.check;
    check.setAttribute('data-check', '');
    sol.type = 'button';
    sol.textContent = w.solution;
    sol.setAttribute('data-solution', '');
    var verdict = document.createElement('pre'), solution = document.createElement('pre');
    verdict.setAttribute('data-verdict', '');
    solution.className = 'solution';
    [h, q, tol, input, check, sol, verdict, solution].forEach(function (e) { box.appendChild(e); });
    if (progress().indexOf(box.dataset.exercise) >= 0) h.className = 'done';
    exercise(exArgs(box, []), function (r) {
      var j = parsed(r);
      if (!j) { q.textContent = r.stderr; return; }
      h.textContent = n + '. ' + j.title;
      q.textContent = j.question + (j.options ? '\n' + j.options.map(function (o) { return o.letter + ') ' + o.text; }).join('\n') : '');
      tol.textContent = j.tolerance_text;
      box.dataset.posed = String(j.seed);
    });
    function checkIt() {
      exercise(exArgs(box, ['--answer', input.value.trim()]), function (r) {
        var j = parsed(r);
        if (!j) { verdict.setAttribute('data-verdict', 'refused'); verdict.textContent = r.stderr; return; }
        verdict.setAttribute('data-verdict', j.verdict);
        verdict.textContent = j.message;
        if (j.correct) { markDone(box.dataset.exercise); h.className = 'done'; }
      });
    }
    check.addEventListener('click', checkIt);
    input.addEventListener('keydown', function (e) { if (e.key === 'Enter') checkIt(); });
    sol.addEventListener('click', function () {
      exercise(exArgs(box, ['--solution']), function (r) {
        var j = parsed(r);
        if (!j) { solution.textContent = r.stderr; return; }
        box.dataset.key = j.key_text;
        solution.textContent = (j.solution ? j.solution + '\n' : '') +
          (j.reasons ? j.reasons.map(function (x, i) { return String.fromCharCode(97 + i) + ') ' + x; }).join('\n') + '\n' : '') +
          W().key + ' ' + j.key_text;
      });
    });
    return box;
  }
  $('exercise-seed').addEventListener('change', function () { if (state.view === 'lesson') drawExercises(); });

  function run() {
    if (state.view === 'path') return;
    var job = {id: nextId++, args: args().concat(['--html', '/run/page.html', '--json', '/run/trace.json'])};
    if (busy) { pending = job; return; }
    send(job);
  }
  function send(job) {
    busy = true;
    lessonRunning = true;
    main.dataset.state = 'computing';
    clearTimeout(slow);
    slow = setTimeout(function () { if (ready) $('status').textContent = W().computing; }, 200);
    if (!port) start();  // the last core failed: a fresh one
    port.postMessage(job);
  }
  function result(r) {
    if (r.ready) { ready = true; $('status').textContent = busy ? W().computing : ''; return; }
    if (r.fatal) {  // the core could not start, or its worker died
      if (port && port.terminate) port.terminate();
      port = null;
      r = {rc: -1, page: null, trace: null, stderr: r.fatal};
    }
    busy = false;
    if (r.id in exJobs) {  // an exercise's run: its box takes the result
      var then = exJobs[r.id];
      delete exJobs[r.id];
      then(r);
      dispatch();
      return;
    }
    clearTimeout(slow);
    lessonRunning = false;
    if (pending) { var p = pending; pending = null; send(p); return; }  // a newer run was asked for
    setTimeout(dispatch, 0);  // the exercises waiting behind this lesson's run
    var w = W(), err = $('error');
    main.dataset.rc = String(r.rc);
    if (r.page !== null && (r.rc === 0 || r.too_large)) {
      err.hidden = true;
      err.textContent = '';
      view.srcdoc = r.page;
      traceEl.textContent = r.trace || '';
      var t = JSON.parse(r.trace || '{}'), cfg = t.config || {};
      $('settings').textContent = Object.keys(cfg).map(function (k) { return k + '=' + JSON.stringify(cfg[k]); }).join('  ');
      forget();
      if (r.trace) {
        var dl = $('download');
        dl.href = URL.createObjectURL(new Blob([r.trace], {type: 'application/json'}));
        dl.download = 'attnlab-' + state.lesson.name + '.json';
      }
      $('status').textContent = fill(w.ran, {ms: Math.round(r.ms)}) +
        (r.too_large ? ' ' + fill(w.too_large, {mb: r.too_large >> 20}) : '');
      shown = false;  // done when the frame has loaded the new page (its load event, below)
      return;
    } else {
      err.hidden = false;
      err.textContent = (r.rc === 2 ? w.refused : w.failed) + '\n' + (r.stderr || '');
      traceEl.textContent = '';
      view.srcdoc = '';  // nothing of the run before stays on show
      forget();
      $('settings').textContent = '';
      $('status').textContent = '';
    }
    main.dataset.state = 'done';
  }
  function forget() {  // the download link of the run before
    var dl = $('download');
    if (dl.href) URL.revokeObjectURL(dl.href);
    dl.removeAttribute('href');
  }
  view.addEventListener('load', function () {
    try { view.style.height = (view.contentDocument.documentElement.scrollHeight + 24) + 'px'; } catch (e) {}
    if (!shown && !lessonRunning) { shown = true; main.dataset.state = 'done'; }
  });

  function start() {
    try {
      var src = coreText + '\n' + attnlabDriver.toString() + '\nattnlabDriver(AttnlabCore, self);\n';
      var worker = new Worker(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));
      worker.onmessage = function (e) { result(e.data); };
      worker.onerror = function (e) { worker.terminate(); result({fatal: String(e.message || e)}); };
      port = worker;
    } catch (e) {
      // no worker: the core runs on the page, which waits while a lesson runs
      noWorker = true;
      $('no-worker').textContent = W().no_worker;
      var s = document.createElement('script');
      s.textContent = coreText;
      document.head.appendChild(s);
      var here = {postMessage: function (m) { setTimeout(function () { result(m); }, 0); }};
      port = {postMessage: function (m) { setTimeout(function () { here.onmessage({data: m}); }, 0); }};
      attnlabDriver(window.AttnlabCore, here);
    }
  }

  $('lang').addEventListener('change', function () { state.lang = $('lang').value; show(); });
  M.langs.forEach(function (code) {
    var o = document.createElement('option');
    o.value = code;
    o.textContent = M.words[code].lang_name;
    $('lang').appendChild(o);
  });
  window.addEventListener('hashchange', function () { if (location.hash !== hash()) { readHash(); $('lang').value = state.lang; show(); } });
  readHash();
  $('lang').value = state.lang;
  $('status').textContent = W().loading;
  start();
  show();
})();
)JS";

std::string escape_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

bool contains_ci(const std::string& text, const std::string& what) {
  auto it = std::search(text.begin(), text.end(), what.begin(), what.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

// JSON inside <script type="application/json">: "</" may only appear in its strings, where
// "<\/" means the same.
std::string script_safe_json(const std::string& json) {
  std::string out;
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '<' && i + 1 < json.size() && (json[i + 1] == '/' || json[i + 1] == '!')) out += "\\u003c";
    else out += json[i];
  }
  return out;
}

}  // namespace

bool book_core_fits(const std::string& core) {
  return core.find("AttnlabCore") != std::string::npos && !contains_ci(core, "</script") &&
         core.find("<!--") == std::string::npos;
}

std::string render_book(const BookPage& book) {
  if (!book_core_fits(book.core)) throw std::invalid_argument("the book's core does not fit in its <script> element");
  std::string out;
  out.reserve(book.core.size() + book.manifest.size() + 32768);
  out += "<!DOCTYPE html>\n<html lang=\"" + escape_text(book.lang) + "\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += std::string("<meta http-equiv=\"Content-Security-Policy\" content=\"") + kPolicy + "\">\n";
  out += "<title>attnlab</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<header><h1 id=\"title\"></h1><p id=\"intro\"></p>"
         "<label><span id=\"lang-label\"></span> <select id=\"lang\"></select></label></header>\n";
  out += "<div class=\"book\">\n<nav aria-labelledby=\"nav-label\"><h2 id=\"nav-label\" hidden></h2><div id=\"lessons\"></div></nav>\n";
  // The path (what the book opens on): the course's stops with the exercises done in this browser.
  out += "<section id=\"path\" hidden><h2 id=\"path-title\"></h2><p id=\"path-intro\" class=\"note\"></p>"
         "<table><thead><tr><th>#</th><th id=\"path-col-lessons\"></th><th id=\"path-col-teaches\"></th>"
         "<th id=\"path-col-minutes\"></th><th id=\"path-col-done\"></th></tr></thead><tbody id=\"path-stops\"></tbody></table>"
         "<p><button type=\"button\" id=\"progress-reset\"></button></p></section>\n";
  out += "<main id=\"main\" data-state=\"loading\">\n<h2 id=\"lesson-name\"></h2><p id=\"lesson-summary\"></p>\n";
  out += "<form id=\"form\" onsubmit=\"return false\"></form>\n";
  out += "<p id=\"cli-only\" class=\"note\"></p><p id=\"no-worker\" class=\"note\"></p>\n";
  out += "<p id=\"status\" role=\"status\"></p>\n<div id=\"error\" role=\"alert\" hidden></div>\n";
  out += "<p class=\"note\"><span id=\"settings-label\"></span>: <code id=\"settings\"></code></p>\n";
  out += "<p class=\"note\"><span id=\"command-label\"></span>: <code id=\"command\"></code> · <a id=\"link\"></a></p>\n";
  out += "<iframe id=\"view\" title=\"lesson\"></iframe>\n";
  out += "<details><summary id=\"trace-label\"></summary><p><a id=\"download\"></a></p><pre id=\"attnlab-trace\"></pre></details>\n";
  // The lesson's exercises, checked here by the same core (attnlab exercise … --json -).
  out += "<section id=\"exercises\"><h3 id=\"exercises-title\"></h3><p class=\"note\"><label><span id=\"exercise-seed-label\"></span> "
         "<input type=\"text\" id=\"exercise-seed\" value=\"1\" size=\"8\"></label></p><div id=\"exercise-list\"></div></section>\n";
  out += "</main>\n</div>\n<footer id=\"about\"></footer>\n";
  out += "<script type=\"application/json\" id=\"attnlab-manifest\">" + script_safe_json(book.manifest) + "</script>\n";
  out += "<script type=\"text/plain\" id=\"attnlab-core\">" + book.core + "</script>\n";
  out += std::string("<script>") + kDriver + kPage + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace attn
