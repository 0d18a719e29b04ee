import { brokerRestartCases, canRestartBroker } from './broker-restart-cases';

// Restarts the machine's RabbitMQ, so it runs alone after the rest of the suite
// (bin/test.js): any other test file using the broker meanwhile would lose it.
(canRestartBroker ? describe : describe.skip)('bus over RabbitMQ, with the broker restarted', brokerRestartCases);
