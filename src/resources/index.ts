import type { ResourceDefinition } from '../registry/resource-definition';
import { apiservices } from './apiservices';
import { certificatesigningrequests } from './certificatesigningrequests';
import { componentstatuses } from './componentstatuses';
import { configmaps } from './configmaps';
import { controllerrevisions } from './controllerrevisions';
import { cronjobs } from './cronjobs';
import { csidrivers } from './csidrivers';
import { csinodes } from './csinodes';
import { csistoragecapacities } from './csistoragecapacities';
import { customresourcedefinitions } from './customresourcedefinitions';
import { daemonsets } from './daemonsets';
import { deployments } from './deployments';
import { endpoints } from './endpoints';
import { endpointslices } from './endpointslices';
import { events } from './events';
import { eventsV1 } from './events-v1';
import { horizontalpodautoscalers } from './horizontalpodautoscalers';
import { horizontalpodautoscalersV1 } from './horizontalpodautoscalers-v1';
import { ingressclasses } from './ingressclasses';
import { ingresses } from './ingresses';
import { ipaddresses } from './ipaddresses';
import { jobs } from './jobs';
import { leases } from './leases';
import { limitranges } from './limitranges';
import { namespaces } from './namespaces';
import { mutatingwebhookconfigurations } from './mutatingwebhookconfigurations';
import { networkpolicies } from './networkpolicies';
import { nodes } from './nodes';
import { persistentvolumeclaims } from './persistentvolumeclaims';
import { persistentvolumes } from './persistentvolumes';
import { poddisruptionbudgets } from './poddisruptionbudgets';
import { bindings } from './bindings';
import { pods } from './pods';
import { podtemplates } from './podtemplates';
import { priorityclasses } from './priorityclasses';
import { clusterrolebindings, clusterroles, rolebindings, roles } from './rbac';
import { replicasets } from './replicasets';
import { replicationcontrollers } from './replicationcontrollers';
import { resourcequotas } from './resourcequotas';
import { runtimeclasses } from './runtimeclasses';
import { secrets } from './secrets';
import { selfsubjectreviews } from './selfsubjectreviews';
import { selfsubjectrulesreviews } from './selfsubjectrulesreviews';
import { serviceaccounts } from './serviceaccounts';
import { servicecidrs } from './servicecidrs';
import { services } from './services';
import { statefulsets } from './statefulsets';
import { storageclasses } from './storageclasses';
import { localsubjectaccessreviews, selfsubjectaccessreviews, subjectaccessreviews } from './subject-access-reviews';
import { tokenreviews } from './tokenreviews';
import { validatingwebhookconfigurations } from './validatingwebhookconfigurations';
import { validatingadmissionpolicies } from './validatingadmissionpolicies';
import { validatingadmissionpolicybindings } from './validatingadmissionpolicybindings';
import { mutatingadmissionpolicies, mutatingadmissionpoliciesV1beta1 } from './mutatingadmissionpolicies';
import { mutatingadmissionpolicybindings, mutatingadmissionpolicybindingsV1beta1 } from './mutatingadmissionpolicybindings';
import { volumeattachments } from './volumeattachments';
import { volumeattributesclasses } from './volumeattributesclasses';
import { deviceclasses } from './deviceclasses';
import { flowschemas } from './flowschemas';
import { prioritylevelconfigurations } from './prioritylevelconfigurations';
import { resourceclaims } from './resourceclaims';
import { resourceclaimtemplates } from './resourceclaimtemplates';
import { resourceslices } from './resourceslices';

/** Every built-in resource kapi serves; groups appear in discovery in kube-apiserver's order. */
export const BUILT_IN_RESOURCES: ResourceDefinition[] = [
  namespaces,
  nodes,
  pods,
  bindings,
  services,
  configmaps,
  secrets,
  serviceaccounts,
  events,
  endpoints,
  persistentvolumeclaims,
  persistentvolumes,
  replicationcontrollers,
  podtemplates,
  limitranges,
  resourcequotas,
  componentstatuses,
  apiservices,
  deployments,
  replicasets,
  statefulsets,
  daemonsets,
  controllerrevisions,
  eventsV1,
  selfsubjectreviews,
  tokenreviews,
  localsubjectaccessreviews,
  selfsubjectaccessreviews,
  selfsubjectrulesreviews,
  subjectaccessreviews,
  horizontalpodautoscalers,
  horizontalpodautoscalersV1,
  cronjobs,
  jobs,
  certificatesigningrequests,
  ingressclasses,
  ingresses,
  networkpolicies,
  ipaddresses,
  servicecidrs,
  poddisruptionbudgets,
  clusterrolebindings,
  clusterroles,
  rolebindings,
  roles,
  storageclasses,
  csidrivers,
  csinodes,
  volumeattachments,
  csistoragecapacities,
  volumeattributesclasses,
  mutatingwebhookconfigurations,
  validatingwebhookconfigurations,
  validatingadmissionpolicies,
  validatingadmissionpolicybindings,
  mutatingadmissionpolicies,
  mutatingadmissionpolicybindings,
  mutatingadmissionpoliciesV1beta1,
  mutatingadmissionpolicybindingsV1beta1,
  customresourcedefinitions,
  priorityclasses,
  leases,
  runtimeclasses,
  endpointslices,
  flowschemas,
  prioritylevelconfigurations,
  deviceclasses,
  resourceclaims,
  resourceclaimtemplates,
  resourceslices,
];
