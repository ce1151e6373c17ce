// The one clock of the server lives in api/ (storage and the registry take it too); controllers import it from here.
export { ManualClock, sleep, systemClock, type Clock } from '../../api/clock';
