/**
 * The callback payloads as the wire carries them (spec: config kinds, "Admission review", "Image
 * review", SubjectAccessReview, ExecCredential). runtime/ never imports generated/, so the kit
 * declares the fields it reads and writes; the generated types in `svckit/generated/...` are the
 * full shapes.
 */
import type { StatusObject } from '../api/index.js';
import type { EXEC_API_VERSIONS } from '../client-node/index.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** `AdmissionReview.request`. */
export interface AdmissionRequest<T = Record<string, unknown>> {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo: UserInfo;
  object?: T | null;
  oldObject?: T | null;
  dryRun?: boolean;
  options?: Record<string, unknown> | null;
}

/** `AdmissionReview.response`. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Partial<StatusObject> & { message?: string; code?: number; reason?: string };
  /** Base64 of a JSON Patch document. */
  patch?: string;
  patchType?: 'JSONPatch';
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

export interface AdmissionReview<T = Record<string, unknown>> {
  /** `admission.k8s.io/...` from a server started with `--group-suffix k8s.io`. */
  apiVersion: 'admission.svc.io/v1' | 'admission.svc.io/v1beta1' | 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1';
  kind: 'AdmissionReview';
  request?: AdmissionRequest<T>;
  response?: AdmissionResponse;
}

/** The admission review versions a server can send, by the name webhooks list in `admissionReviewVersions`. */
export const ADMISSION_REVIEW_API_VERSIONS = {
  v1: 'admission.svc.io/v1',
  v1beta1: 'admission.svc.io/v1beta1',
} as const;

export interface ImageReviewContainerSpec {
  image: string;
}

export interface ImageReview {
  /** `imagepolicy.k8s.io/v1alpha1` from a server started with `--group-suffix k8s.io`. */
  apiVersion: 'imagepolicy.svc.io/v1alpha1' | 'imagepolicy.k8s.io/v1alpha1';
  kind: 'ImageReview';
  metadata?: Record<string, unknown>;
  spec: { containers?: ImageReviewContainerSpec[]; annotations?: Record<string, string>; namespace?: string };
  status?: { allowed: boolean; reason?: string; auditAnnotations?: Record<string, string> };
}

export interface SubjectAccessReview {
  apiVersion: string;
  kind: 'SubjectAccessReview';
  spec: {
    resourceAttributes?: Record<string, unknown>;
    nonResourceAttributes?: { path?: string; verb?: string };
    user?: string;
    groups?: string[];
    uid?: string;
    extra?: Record<string, string[]>;
  };
  status?: { allowed: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

export interface ExecCredential {
  /** The spec's versions, or the real system's (`client.authentication.k8s.io/v1`, `v1beta1`). */
  apiVersion: (typeof EXEC_API_VERSIONS)[number];
  kind: 'ExecCredential';
  spec?: { cluster?: Record<string, unknown>; interactive?: boolean };
  status?: { expirationTimestamp?: string; token?: string; clientCertificateData?: string; clientKeyData?: string };
}

/** A CRD conversion webhook's payload (`apiextensions.svc.io/v1` ConversionReview, or `apiextensions.k8s.io/v1`). */
export interface ConversionReview {
  apiVersion: string;
  kind: 'ConversionReview';
  request?: {
    uid: string;
    desiredAPIVersion: string;
    objects: Record<string, unknown>[];
  };
  response?: {
    uid: string;
    convertedObjects: Record<string, unknown>[];
    result: { status: 'Success' | 'Failure'; message?: string };
  };
}
