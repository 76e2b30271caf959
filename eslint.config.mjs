import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";

export default tseslint.config(
  { ignores: ["node_modules/", "artifacts/", "cache/", "typechain-types/", "coverage/", "data/", "dist/", "**/dist/"] },
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      // chai's `expect(x).to.be.true` style reads as an unused expression.
      "@typescript-eslint/no-unused-expressions": "off",
    },
  },
);
