import { serveBlobUrls } from '@/core/workspace/blob-url';

serveBlobUrls();
