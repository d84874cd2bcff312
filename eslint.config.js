// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", ".local/", "coverage/", "test-artifacts/", "hack/tools/"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["*.js"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      // @kubernetes/client-node models are classes used as plain JSON shapes; literals are the idiom.
      "@typescript-eslint/no-unsafe-class-instance-assignment": "off",
    },
  },
  {
    // A caught error is logged as `{ err }`: pino's err serializer keeps its stack and cause, which a
    // bare `err.message` drops (CONTRIBUTING.md, "Errors").
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(trace|debug|info|warn|error|fatal)$/] MemberExpression[property.name='message'][object.type='Identifier'][object.name=/^(e|err|error|cause)$|Err(or)?$/]",
          message: "Log the error itself as `{ err }` (pino keeps its stack and cause), not its `.message`.",
        },
      ],
    },
  },
  { files: ["**/*.js"], extends: [tseslint.configs.disableTypeChecked] },
  prettier,
);
