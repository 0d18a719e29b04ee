import { batchDeliveryCases, batchTransportCases, malformedMessageCases } from './batch-cases';
import { brokerRestartCases, canRestartBroker } from './broker-restart-cases';
import { deliveryCases } from './delivery-cases';
import { workerCases } from './worker-cases';

// Every bus test runs in this one file, so they run one after another: the broker
// restart below must not pull the broker from under a timing test running beside it.

describe('batched delivery (one inbox transaction, a savepoint per handler)', batchDeliveryCases);

describe('bus over in-process delivery', () => {
  deliveryCases({});
  batchTransportCases({});
  workerCases({});
});

// RabbitMQ when AMQP_URL points at a broker (CI sets it).
(process.env.AMQP_URL ? describe : describe.skip)('bus over RabbitMQ', () => {
  const amqp = { amqpUrl: process.env.AMQP_URL };
  deliveryCases(amqp);
  batchTransportCases(amqp);
  malformedMessageCases(amqp);
  workerCases(amqp);
  (canRestartBroker ? describe : describe.skip)('with the broker restarted', brokerRestartCases);
});
