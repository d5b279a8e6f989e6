-- wrk script of the server bench (bench/README.md, "The server bench"): a fixed request mix with
-- think time, so that the Jetty workload runs at a steady, moderate load instead of saturating the
-- machine. Every connection waits THINK_MS after each response before its next request (wrk's
-- delay()), so the request rate is about connections / (THINK_MS + response time), whatever the
-- profiler does; the server's CPU per request is then comparable across profilers.
--
--   wrk -t1 -c4 -d15s -s bench/server/pace.lua http://127.0.0.1:PORT -- BODIES_DIR [THINK_MS]
--
-- BODIES_DIR holds the bodies the server wrote at start (`jetty --bodies DIR`): json-N.json (6
-- orders, ~4 KB) and log-N.txt (24 log lines, ~5 KB), N = 0..7. The mix, repeated in this order over
-- the 8 variants: json 3, regex 3, hash 2, mix 2 of every 10 requests.

local MIX = {"json", "regex", "hash", "json", "mix", "regex", "json", "hash", "regex", "mix"}
local requests = {}
local think_ms = 1
local next_request = 0

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

function init(args)
  local dir = args[1]
  if not dir then
    error("usage: wrk ... -s pace.lua URL -- BODIES_DIR [THINK_MS]")
  end
  think_ms = tonumber(args[2] or "1")
  for v = 0, 7 do
    local json = read(dir .. "/json-" .. v .. ".json")
    local log = read(dir .. "/log-" .. v .. ".txt")
    for _, endpoint in ipairs(MIX) do
      local body = (endpoint == "json" or endpoint == "mix") and json or log
      requests[#requests + 1] = wrk.format("POST", "/" .. endpoint, {["Content-Type"] = "application/octet-stream"}, body)
    end
  end
end

function request()
  next_request = next_request % #requests + 1
  return requests[next_request]
end

function delay()
  return think_ms
end
