export { TurnLease } from './turn-lease.entity';
