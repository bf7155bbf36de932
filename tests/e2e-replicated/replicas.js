// Read by startSystem (tests/support/src/system.ts) in every test file of this project.
process.env.TRACKER_E2E_REPLICAS = '2';
