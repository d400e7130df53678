-- The Lua 4 the Dark Pawns scripts were written for, on Lua 5.4 (src/script/compat.rs).
-- Loaded once into the shared globals before the world's own globals.lua.
local string, table, math, type, pairs, rawget, tostring = string, table, math, type, pairs, rawget, tostring
local raw_pcall, raw_xpcall, raw_load, check = pcall, xpcall, load, __pawns_check

-- Lua 4 numbers were doubles and C took (int) of them: truncate toward zero.
local function int(x)
  if math.type(x) == "float" then
    if x >= 0 then return math.floor(x) else return math.ceil(x) end
  end
  return x
end
__pawns_int = int

-- getn: `n` if it is a number, else the largest numeric key (Lua 4's rule, not a border).
function getn(t)
  if type(t) ~= "table" then return 0 end
  local n = rawget(t, "n")
  if type(n) == "number" then return int(n) end
  local max = 0
  for k in pairs(t) do
    if type(k) == "number" and k > max then max = k end
  end
  return int(max)
end

function tinsert(t, a, b)
  local n = getn(t)
  if b == nil then
    t[n + 1] = a
  else
    a = int(a)
    for i = n, a, -1 do t[i + 1] = t[i] end
    t[a] = b
  end
  if type(rawget(t, "n")) == "number" then t.n = n + 1 end
end

function tremove(t, pos)
  local n = getn(t)
  if n <= 0 then return nil end
  pos = int(pos or n)
  local v = t[pos]
  for i = pos, n - 1 do t[i] = t[i + 1] end
  t[n] = nil
  if type(rawget(t, "n")) == "number" then t.n = n - 1 end
  return v
end

-- Keys in a fixed order (numbers, then strings), so replays iterate alike.
local function before(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end
function __pawns_sorted(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, before)
  local i = 0
  return function()
    i = i + 1
    local k = keys[i]
    if k ~= nil then return k, t[k] end
  end
end

function sort(t, f) table.sort(t, f) end
function foreach(t, f)
  for k, v in __pawns_sorted(t) do
    local r = f(k, v)
    if r ~= nil then return r end
  end
end
function foreachi(t, f)
  for i = 1, getn(t) do
    local r = f(i, t[i])
    if r ~= nil then return r end
  end
end

strfind = string.find
strlower = string.lower
strupper = string.upper
strlen = string.len
gsub = string.gsub
function strsub(s, i, j) return string.sub(s, int(i or 1), j and int(j)) end
function strrep(s, n) return string.rep(s, int(n)) end
function strbyte(s, i) return string.byte(s, i and int(i)) end
function strchar(...)
  local args = table.pack(...)
  for i = 1, args.n do args[i] = int(args[i]) end
  return string.char(table.unpack(args, 1, args.n))
end
-- 5.4's %d refuses 2.5 where Lua 4 printed 2: integer conversions get whole numbers.
function format(fmt, ...)
  local args = table.pack(...)
  local i = 0
  for spec in string.gmatch(fmt, "%%[-+ #0]*%d*%.?%d*(%a)") do
    i = i + 1
    if spec:find("[dicouxX]") and type(args[i]) == "number" then args[i] = int(args[i]) end
  end
  return string.format(fmt, table.unpack(args, 1, args.n))
end

abs, ceil, floor, exp, sqrt = math.abs, math.ceil, math.floor, math.exp, math.sqrt
min, max, sin, cos, tan = math.min, math.max, math.sin, math.cos, math.tan
asin, acos, atan, deg, rad = math.asin, math.acos, math.atan, math.deg, math.rad
PI = math.pi
function mod(a, b) return math.fmod(a, b) end
function log10(x) return math.log(x, 10) end

-- A budget overrun or a memory error is not the script's to catch.
function pcall(f, ...)
  local r = table.pack(raw_pcall(f, ...))
  if not r[1] then check(r[2]) end
  return table.unpack(r, 1, r.n)
end
function xpcall(f, h, ...)
  local r = table.pack(raw_xpcall(f, function(e) check(e) return h(e) end, ...))
  return table.unpack(r, 1, r.n)
end

-- call(f, {args}, "x"): the arguments unpacked; with "x", nil on error.
function call(f, args, mode)
  local n = getn(args)
  local unpacked = {}
  for i = 1, n do unpacked[i] = args[i] end
  if mode and string.find(mode, "x") then
    local r = table.pack(raw_pcall(f, table.unpack(unpacked, 1, n)))
    if not r[1] then check(r[2]) return nil end
    return table.unpack(r, 2, r.n)
  end
  return f(table.unpack(unpacked, 1, n))
end

function dostring(s)
  local f, e = raw_load(s, "=dostring", "t")
  if not f then return nil, e end
  return f()
end
