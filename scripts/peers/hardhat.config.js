// The Hardhat node the peer benchmark starts: the default dev accounts and chain id; automine, or
// interval mining when HARDHAT_BLOCK_TIME_MS is set.
const interval = Number(process.env.HARDHAT_BLOCK_TIME_MS ?? 0);
module.exports = {
  networks: {
    hardhat: {
      chainId: 31337,
      mining: interval > 0 ? { auto: false, interval } : { auto: true },
    },
  },
};
