/** `kapi/testing`: a kapi per test suite, on a shared etcd; importing it starts nothing. */
export { startKapi, type Kapi, type StartKapiOptions } from './start-kapi';
export { insecureKubeconfig } from './kubeconfig';
