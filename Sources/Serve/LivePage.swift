import Foundation
import Replay
import Traces

/// The live web view: the run's map (the drawing `stroll replay --html` makes)
/// with the walker moving, the map region drawn, the rankings re-sorting (the
/// groups in the replay's order, `RunMap.groups`), and controls for pause,
/// resume and speed. It listens to `/events` (Server-Sent
/// Events) and posts to `/control`.
public struct LivePage: Sendable {
    public let html: String
    public let projector: ScreenProjection

    public init(map: RunMap, title: String) {
        projector = map.projector
        let name = TraceWriter.escape(title)
        let order = JSON.array(map.groups.map { .string($0) }).text.replacingOccurrences(of: "</", with: "<\\/")
        html = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>\(name) (live)</title>
        <link rel="icon" href="data:,">
        <style>
        \(RunMap.pageStyle)
        #controls button { margin-right: 6px; }
        #status { color: #555; margin: 8px 0; }
        </style>
        </head>
        <body>
        <h1>\(name) <small>live</small></h1>
        <main>
        \(map.svgElement())
        <div id="panel">
        <div id="controls">
        <button id="pause" type="button">Pause</button><button id="resume" type="button">Resume</button>
        <label>Speed <input id="speed" type="number" min="0.1" step="0.1" value="1" style="width: 5em"></label>
        <button id="apply" type="button">Set</button>
        </div>
        <div id="status">Waiting for the walk…</div>
        <div id="rankings"></div>
        </div>
        </main>
        <script>
        \(RunMap.rankingScript)
        \(RunMap.labelScript)
        const svg = document.getElementById("map");
        const ns = "http://www.w3.org/2000/svg";
        function element(id, tag, attributes) {
          let e = document.getElementById(id);
          if (!e) {
            e = document.createElementNS(ns, tag);
            e.id = id;
            for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
            svg.appendChild(e);
          }
          return e;
        }
        const region = element("region", "rect", { fill: "none", stroke: "#c0392b", "stroke-width": 1.5, "stroke-dasharray": "4 3", width: 0, height: 0 });
        const walker = element("walker", "circle", { r: 7, fill: "#ffffff", stroke: "#2a7ab0", "stroke-width": 3, cx: -100, cy: -100 });
        svg.appendChild(walker);
        const groups = new Map();
        let state = { paused: false, speed: 1 };
        let last = null;
        function status(text) { document.getElementById("status").textContent = text; }
        function showStatus() {
          if (!last) return;
          status((state.paused ? "Paused at " : "") + last.time + "  " + last.lat.toFixed(6) + ", " + last.lon.toFixed(6) + "  ±" + Math.round(last.accuracy) + " m  (speed " + state.speed + "x)");
        }
        // The groups in the replay's order (the terminal's), whichever's ranking comes first.
        const groupOrder = \(order);
        function rank(group) {
          const i = groupOrder.indexOf(group);
          return i < 0 ? groupOrder.length : i;
        }
        function showRanking(m) {
          let shown = groups.get(m.group);
          if (!shown) {
            const h = document.createElement("h2");
            h.textContent = m.group;
            const table = document.createElement("table");
            table.dataset.group = m.group;
            const next = [...groups.entries()].filter(([g]) => rank(g) > rank(m.group)).sort(([a], [b]) => rank(a) - rank(b))[0];
            const rankings = document.getElementById("rankings");
            if (next) {
              rankings.insertBefore(h, next[1].h);
              rankings.insertBefore(table, next[1].h);
            } else {
              rankings.append(h, table);
            }
            shown = { h: h, table: table };
            groups.set(m.group, shown);
          }
          fillRanking(shown.table, m.rows);
        }
        const events = new EventSource("events");
        events.onmessage = (e) => {
          const m = JSON.parse(e.data);
          if (m.type === "location") {
            walker.setAttribute("cx", m.x);
            walker.setAttribute("cy", m.y);
            walker.dataset.time = m.time;
            last = m;
            showStatus();
          } else if (m.type === "ranking") {
            showRanking(m);
          } else if (m.type === "region") {
            region.setAttribute("x", m.x); region.setAttribute("y", m.y);
            region.setAttribute("width", m.w); region.setAttribute("height", m.h);
          } else if (m.type === "state") {
            state = m;
            document.getElementById("speed").value = m.speed;
            showStatus();
          } else if (m.type === "end") {
            status("The walk has ended.");
            events.close();
          }
        };
        function control(query) { fetch("control?" + query, { method: "POST" }); }
        document.getElementById("pause").onclick = () => control("action=pause");
        document.getElementById("resume").onclick = () => control("action=resume");
        document.getElementById("apply").onclick = () => control("action=speed&value=" + encodeURIComponent(document.getElementById("speed").value));
        </script>
        </body>
        </html>

        """
    }
}
