-- Headless Neovim attaches zy-lsp to a fixture and asserts a hover and the code lenses.
-- Run by tests/nvim/run; arguments come through environment variables.
local server = os.getenv("ZY_LSP")
local fixture = os.getenv("ZY_FIXTURE")
local failures = 0

local function fail(msg)
  io.stderr:write("FAIL: " .. msg .. "\n")
  failures = failures + 1
end

-- A global timeout: never hang CI.
vim.defer_fn(function()
  io.stderr:write("FAIL: timed out\n")
  vim.cmd("cquit 2")
end, 60000)

vim.cmd("edit " .. fixture)
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start({ name = "zy", cmd = { server }, root_dir = vim.fn.getcwd() })
if not client_id then
  fail("zy-lsp did not start")
  vim.cmd("cquit 1")
end
vim.wait(20000, function()
  local c = vim.lsp.get_client_by_id(client_id)
  return c ~= nil and c.initialized
end, 50)

-- Hover on `pow` in `function pow(x, n)` (line 4 of fixtures/pow.jl, 0-based 3).
local line_no
for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
  if l:match("^function pow%(") then line_no = i - 1 break end
end
if not line_no then fail("no `function pow(` line in the fixture") end
local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line_no, character = 10 } }
local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 20000)
local text = ""
for _, r in pairs(hover or {}) do
  if r.result and r.result.contents then text = r.result.contents.value end
end
local expected_sig = "pow(x::Float64, n::Int64) -> Union{Float64, Int64}"
if not text:find(expected_sig, 1, true) then fail("hover lacks `" .. expected_sig .. "`: " .. text) end
if not text:find("gradient: `Tuple{Float64, Nothing}`", 1, true) then fail("hover lacks the gradient type: " .. text) end

local lenses = vim.lsp.buf_request_sync(buf, "textDocument/codeLens", { textDocument = params.textDocument }, 20000)
local titles = {}
for _, r in pairs(lenses or {}) do
  for _, lens in ipairs(r.result or {}) do
    if lens.range.start.line == line_no then table.insert(titles, lens.command.title) end
  end
end
local got = table.concat(titles, " | ")
if got ~= "∇ compute gradient | show adjoint IR | show SSA" then fail("code lenses: " .. got) end

if failures > 0 then vim.cmd("cquit 1") end
print("nvim: hover and code lenses OK")
vim.cmd("qall!")
