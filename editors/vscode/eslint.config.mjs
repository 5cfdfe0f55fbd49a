// Minimal lint: ESLint's and typescript-eslint's recommended rules over the sources.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
    { ignores: ["out/", "dist/", "node_modules/"] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    { files: ["**/*.mjs"], languageOptions: { globals: { process: "readonly", console: "readonly" } } },
);
