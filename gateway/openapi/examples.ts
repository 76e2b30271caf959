/**
 * Values the reference's examples share, so one request's answer and the next request agree (taken from a test
 * deployment: the reference factories, the test clock).
 */
export const EXAMPLE = {
  /** An app's bearer token (shortened). */
  appToken:
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJjaWQiOiJjaWRfNXBjajFXTjNubWZFelhwcFNoaDhGWSIsImdlbiI6MH0.sZvvCiha2o9E",
  /** A phone-login user token of tel:14155552671 (shortened): the `auth` proof of that id. */
  userToken: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZWw6MTQxNTU1NTI2NzEifQ.BH6Sn1r-cS055KXN",
  userId: "tel:14155552671",
  /** The kernel wallet of tel:14155552671. */
  wallet: "0x3d8a9cF516b62BB0D3e17E2f291b5f2F4D050FD8",
  /** A call target. */
  target: "0x000000000000000000000000000000000000dEaD",
  /** A customer's signer of a Safe. */
  signer: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  /** The Safe of that signer (saltNonce 1). */
  safe: "0x7Ab3280A1C1c00dac0dEcE690fD921890d5d209E",
  /** The operator's owner key, the other owner of every Safe. */
  operator: "0xb7cF38e4B36B03895E5580abE5b379E6739e8C4C",
  /** An ERC-20 or NFT contract. */
  token: "0x581490710c739667044636454E7D284063E902bf",
  time: "2026-11-22T12:00:00.000Z",
  later: "2026-11-22T12:00:14.000Z",
  txHash: "0x5b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
  userOpHash: "0x8e2f4c6a1b3d5f7092a4c6e8f0b2d4f6a8c0e2f4b6d8f0a2c4e6b8d0f2a4c6e8",
} as const;
