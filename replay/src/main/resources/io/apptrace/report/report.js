// apptrace report: zoom and pan of every timeline together, and their time axes.
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var views = Array.prototype.slice.call(document.querySelectorAll('svg.timeline'));
  var span = 1;
  views.forEach(function (v) { span = Math.max(span, parseFloat(v.getAttribute('data-span-ns'))); });
  var t0 = 0, t1 = span;

  function time(ns) {
    var a = Math.abs(ns);
    if (a === 0) { return '0'; }
    if (a < 1e3) { return +ns.toFixed(1) + ' ns'; }
    if (a < 1e6) { return +(ns / 1e3).toFixed(2) + ' us'; }
    if (a < 1e9) { return +(ns / 1e6).toFixed(3) + ' ms'; }
    return +(ns / 1e9).toFixed(3) + ' s';
  }

  function step(width) {
    var raw = width / 8, p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var m = [1, 2, 5, 10].find(function (k) { return k * p >= raw; });
    return m * p;
  }

  function draw() {
    var k = span / (t1 - t0);
    views.forEach(function (v) {
      var x = parseFloat(v.getAttribute('data-plot-x')), w = parseFloat(v.getAttribute('data-plot-width'));
      v.querySelector('g.zoom').setAttribute('transform',
        'translate(' + (x - t0 / span * w * k) + ',0) scale(' + k + ',1)');
      var axis = v.querySelector('g.axis');
      while (axis.firstChild) { axis.removeChild(axis.firstChild); }
      var s = step(t1 - t0), h = parseFloat(v.getAttribute('height'));
      for (var t = Math.ceil(t0 / s) * s; t <= t1; t += s) {
        var px = (t - t0) / (t1 - t0) * w;
        var line = document.createElementNS(SVG, 'line');
        line.setAttribute('x1', px); line.setAttribute('x2', px);
        line.setAttribute('y1', 16); line.setAttribute('y2', h);
        axis.appendChild(line);
        var label = document.createElementNS(SVG, 'text');
        label.setAttribute('x', px); label.setAttribute('y', 12);
        label.setAttribute('class', 'tick'); label.setAttribute('text-anchor', 'middle');
        label.textContent = time(t);
        axis.appendChild(label);
      }
    });
  }

  function zoom(at, factor) {
    var width = Math.min(span, Math.max(10, (t1 - t0) * factor));
    var f = (at - t0) / (t1 - t0);
    t0 = Math.max(0, at - f * width);
    t1 = Math.min(span, t0 + width);
    t0 = Math.max(0, t1 - width);
    draw();
  }

  function timeAt(v, clientX) {
    var r = v.getBoundingClientRect();
    var x = parseFloat(v.getAttribute('data-plot-x')), w = parseFloat(v.getAttribute('data-plot-width'));
    var f = Math.min(1, Math.max(0, (clientX - r.left - x) / w));
    return t0 + f * (t1 - t0);
  }

  views.forEach(function (v) {
    v.addEventListener('wheel', function (e) {
      e.preventDefault();
      zoom(timeAt(v, e.clientX), e.deltaY < 0 ? 0.8 : 1.25);
    }, { passive: false });
    var drag = null;
    v.addEventListener('mousedown', function (e) { drag = { x: e.clientX, t0: t0, t1: t1 }; });
    window.addEventListener('mouseup', function () { drag = null; });
    window.addEventListener('mousemove', function (e) {
      if (!drag) { return; }
      var w = parseFloat(v.getAttribute('data-plot-width'));
      var dt = -(e.clientX - drag.x) / w * (drag.t1 - drag.t0);
      dt = Math.max(-drag.t0, Math.min(span - drag.t1, dt));
      t0 = drag.t0 + dt; t1 = drag.t1 + dt;
      draw();
    });
    v.addEventListener('dblclick', function () { t0 = 0; t1 = span; draw(); });
  });

  Array.prototype.forEach.call(document.querySelectorAll('button[data-zoom]'), function (b) {
    b.addEventListener('click', function () {
      var what = b.getAttribute('data-zoom'), mid = (t0 + t1) / 2;
      if (what === 'reset') { t0 = 0; t1 = span; draw(); } else { zoom(mid, what === 'in' ? 0.5 : 2); }
    });
  });

  draw();
  document.body.setAttribute('data-rendered', 'timelines ' + views.length);
})();
